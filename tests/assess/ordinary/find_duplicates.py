# find duplicate files in a folder by content hash
import hashlib
import os
import sys
from collections import defaultdict


def file_hash(path, chunk=65536):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while True:
            block = f.read(chunk)
            if not block:
                break
            h.update(block)
    return h.hexdigest()


folder = sys.argv[1] if len(sys.argv) > 1 else "."
by_size = defaultdict(list)
for root, _, files in os.walk(folder):
    for name in files:
        p = os.path.join(root, name)
        try:
            by_size[os.path.getsize(p)].append(p)
        except OSError:
            pass

dupes = defaultdict(list)
for size, paths in by_size.items():
    if len(paths) < 2:
        continue
    for p in paths:
        dupes[file_hash(p)].append(p)

found = 0
for digest, paths in dupes.items():
    if len(paths) > 1:
        found += 1
        print(f"{digest[:12]}  ({len(paths)} copies)")
        for p in paths:
            print("    ", p)
if not found:
    print("No duplicates found.")
