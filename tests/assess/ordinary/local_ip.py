import socket

def local_ips():
    host = socket.gethostname()
    try:
        return sorted({ai[4][0] for ai in socket.getaddrinfo(host, None, socket.AF_INET)})
    except socket.gaierror:
        return []

print(f"{socket.gethostname()}: {', '.join(local_ips()) or 'no IPv4 address found'}")
