"""Pick a host from ~/.ssh/config and connect to it."""
import os
import subprocess

config = os.path.expanduser("~/.ssh/config")
hosts = []
with open(config) as f:
    for line in f:
        parts = line.split()
        if len(parts) >= 2 and parts[0].lower() == "host" and "*" not in parts[1]:
            hosts.extend(parts[1:])

for i, h in enumerate(hosts, 1):
    print(f"{i:2}. {h}")
choice = input("connect to: ")
if choice.isdigit() and 1 <= int(choice) <= len(hosts):
    subprocess.call(["ssh", hosts[int(choice) - 1]])
