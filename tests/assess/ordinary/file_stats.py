import os
import time
import stat
import sys

def describe(path):
    st = os.stat(path)
    kind = "directory" if stat.S_ISDIR(st.st_mode) else "file"
    print(f"Name:      {path}")
    print(f"Type:      {kind}")
    print(f"Size:      {st.st_size} bytes")
    print(f"Mode:      {stat.filemode(st.st_mode)}")
    print(f"Modified:  {time.ctime(st.st_mtime)}")
    print(f"Accessed:  {time.ctime(st.st_atime)}")
    print()

for p in sys.argv[1:] or ["."]:
    try:
        describe(p)
    except FileNotFoundError:
        print(p, "does not exist")
