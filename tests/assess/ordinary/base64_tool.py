#!/usr/bin/env python3
"""Encode a file to base64 text or decode it back: base64_tool.py enc|dec IN OUT"""
import base64
import sys

if len(sys.argv) != 4 or sys.argv[1] not in ("enc", "dec"):
    sys.exit(__doc__)
mode, src, dst = sys.argv[1:]
with open(src, "rb") as f:
    data = f.read()
out = base64.b64encode(data) if mode == "enc" else base64.b64decode(data)
with open(dst, "wb") as f:
    f.write(out)
print(f"{len(data)} bytes -> {len(out)} bytes")
