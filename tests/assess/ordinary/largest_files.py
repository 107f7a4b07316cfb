import os
import heapq

TOP = 15


def human(n):
    for unit in ["B", "KB", "MB", "GB"]:
        if n < 1024:
            return f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} TB"


sizes = []
for dirpath, dirnames, filenames in os.walk(os.getcwd()):
    for fn in filenames:
        full = os.path.join(dirpath, fn)
        if os.path.islink(full):
            continue
        try:
            sizes.append((os.path.getsize(full), full))
        except OSError as e:
            print("skip", full, e)

for size, path in heapq.nlargest(TOP, sizes):
    print(human(size).rjust(10), os.path.relpath(path))
