#!/usr/bin/env python3
"""Is something listening on these local ports?"""
import socket

PORTS = {22: "ssh", 80: "http", 443: "https", 5432: "postgres", 6379: "redis", 8000: "dev server"}

for port, name in PORTS.items():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.settimeout(0.5)
        state = "open" if s.connect_ex(("127.0.0.1", port)) == 0 else "closed"
    print(f"{port:5} {name:12} {state}")
