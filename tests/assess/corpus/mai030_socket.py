# expect: MEDIUM
# rules: MAI030
import socket
s = socket.socket()
s.connect(('example.org', 80))
