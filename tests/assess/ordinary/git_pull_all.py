import os
import subprocess

BASE = os.path.expanduser("~/projects")
for name in sorted(os.listdir(BASE)):
    path = os.path.join(BASE, name)
    if os.path.isdir(os.path.join(path, ".git")):
        print(f"== {name}")
        subprocess.run(["git", "-C", path, "pull", "--ff-only"])
