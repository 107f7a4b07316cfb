"""Create .venv and install requirements.txt into it."""
import os
import subprocess
import sys
import venv

if not os.path.isdir(".venv"):
    print("creating .venv")
    venv.create(".venv", with_pip=True)
pip = os.path.join(".venv", "Scripts" if os.name == "nt" else "bin", "pip")
if os.path.exists("requirements.txt"):
    subprocess.check_call([pip, "install", "-r", "requirements.txt"])
else:
    print("no requirements.txt")
print("activate with: source .venv/bin/activate" if os.name != "nt" else r".venv\Scripts\activate")
sys.exit(0)
