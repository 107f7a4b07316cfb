#!/usr/bin/env python3
"""Split a big text file into parts of N lines: big.txt -> big.part001.txt ..."""
import os
import sys

path = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
base, ext = os.path.splitext(path)
part, out, written = 0, None, 0
with open(path, encoding="utf-8", errors="replace") as f:
    for line in f:
        if out is None or written >= n:
            if out:
                out.close()
            part += 1
            out = open(f"{base}.part{part:03d}{ext}", "w", encoding="utf-8")
            written = 0
        out.write(line)
        written += 1
if out:
    out.close()
print(part, "parts written")
