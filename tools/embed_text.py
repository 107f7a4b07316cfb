#!/usr/bin/env python3
"""Build-time helper: writes a C file that holds a text file as a string, so
that the shipped config/security.yaml is also the assessor's built-in rule
set. Usage: embed_text.py INPUT OUTPUT SYMBOL [--blank-comments]
--blank-comments: lines that are YAML comments only become empty lines (the
line numbers stay those of the file): the program parses the text at every
start, and the comments are for people reading the file."""
import re
import sys

src, dst, sym = sys.argv[1:4]
data = open(src, "rb").read()
if "--blank-comments" in sys.argv[4:]:
    data = re.sub(rb"(?m)^[ \t]*#[^\n]*$", b"", data)
with open(dst, "w") as out:
    out.write("/* Generated from %s by tools/embed_text.py at build time. */\n"
              "#include <stddef.h>\n" % src.rsplit("/", 1)[-1])
    out.write("const char %s[] =\n" % sym)
    for i in range(0, len(data), 32):
        out.write('\t"' + "".join("\\x%02x" % b for b in data[i:i + 32]) + '"\n')
    out.write(";\nconst size_t %s_len = %d;\n" % (sym, len(data)))
