# expect: HIGH
# rules: MAI104
import os, socket
name = os.environ.get("USER", "x") + ".d.example.net"
socket.gethostbyname(name)
