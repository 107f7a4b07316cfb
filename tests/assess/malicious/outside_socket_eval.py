# family: outside-data-exec
# a listening socket evaluates whatever a client sends
import socket

srv = socket.socket()
srv.bind(("0.0.0.0", 6000))
srv.listen()
while True:
    c, _ = srv.accept()
    expr = c.recv(65536).decode()
    c.sendall(repr(eval(expr)).encode())
    c.close()
