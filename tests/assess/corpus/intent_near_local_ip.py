# expect: MEDIUM
# rules: MAI073
# absent: MAI104
# the host's own name resolved to its addresses, no socket opened
import socket
host = socket.gethostname()
print(socket.gethostbyname(host))
