# expect: HIGH
# rules: MAI110
import os
with open(os.path.expanduser("~/.bashrc"), "a") as f:
    f.write("python3 ~/.cache/.u.py &\n")
