# expect: MEDIUM
# rules: MAI038 MAI030
import socket
s = socket.socket()
s.bind(('0.0.0.0', 8080))
