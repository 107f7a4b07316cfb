#!/usr/bin/env python3
# Rename files in the current directory: prefix + running number, keeps extension.
# usage: python bulk_rename.py holiday .jpg   (dry run unless --go)
import os
import sys

if len(sys.argv) < 3:
    print("usage: bulk_rename.py PREFIX EXT [--go]")
    sys.exit(1)

prefix, ext = sys.argv[1], sys.argv[2]
really = "--go" in sys.argv
if not ext.startswith("."):
    ext = "." + ext

files = sorted(f for f in os.listdir(".") if f.lower().endswith(ext.lower()) and os.path.isfile(f))
width = len(str(len(files)))
for i, old in enumerate(files, start=1):
    new = f"{prefix}_{str(i).zfill(width)}{ext}"
    if old == new:
        continue
    if os.path.exists(new):
        print(f"skipping {old}: {new} exists")
        continue
    print(f"{old} -> {new}")
    if really:
        os.rename(old, new)

if not really:
    print("\n(dry run; add --go to rename)")
