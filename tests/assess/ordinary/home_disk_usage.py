"""Which folders in your home directory take the most space?"""
import os
from pathlib import Path


def size_of(path):
    total = 0
    for root, _, files in os.walk(path, onerror=lambda e: None):
        for f in files:
            try:
                total += os.lstat(os.path.join(root, f)).st_size
            except OSError:
                pass
    return total


home = Path.home()
sizes = [(size_of(p), p.name) for p in home.iterdir() if p.is_dir() and not p.is_symlink()]
for size, name in sorted(sizes, reverse=True)[:15]:
    print(f"{size / 2**30:8.2f} GiB  {name}")
