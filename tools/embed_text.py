#!/usr/bin/env python3
"""Build-time helper: writes a C file that holds a text file as a string
(the resident Bandit worker's Python program). Usage: embed_text.py INPUT
OUTPUT SYMBOL"""
import sys

src, dst, sym = sys.argv[1:4]
data = open(src, "rb").read()
with open(dst, "w") as out:
    out.write("/* Generated from %s by tools/embed_text.py at build time. */\n"
              "#include <stddef.h>\n" % src.rsplit("/", 1)[-1])
    out.write("const char %s[] =\n" % sym)
    for i in range(0, len(data), 32):
        out.write('\t"' + "".join("\\x%02x" % b for b in data[i:i + 32]) + '"\n')
    out.write(";\nconst size_t %s_len = %d;\n" % (sym, len(data)))
