#!/usr/bin/env python3
"""One-way sync: copy new and changed files from SRC to DST (no deletes)."""
import filecmp
import os
import shutil
import sys


def sync(src, dst):
    copied = 0
    for root, dirs, files in os.walk(src):
        rel = os.path.relpath(root, src)
        target_dir = os.path.join(dst, rel)
        os.makedirs(target_dir, exist_ok=True)
        for f in files:
            s, d = os.path.join(root, f), os.path.join(target_dir, f)
            if not os.path.exists(d) or not filecmp.cmp(s, d, shallow=True):
                shutil.copy2(s, d)
                copied += 1
                print("copied", os.path.join(rel, f))
    return copied


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: sync_folders.py SRC DST")
    print(sync(sys.argv[1], sys.argv[2]), "file(s) copied")
