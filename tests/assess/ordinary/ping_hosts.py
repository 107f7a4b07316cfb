import platform
import subprocess

HOSTS = ["8.8.8.8", "1.1.1.1", "192.168.1.1"]
flag = "-n" if platform.system().lower() == "windows" else "-c"

for host in HOSTS:
    r = subprocess.run(["ping", flag, "1", host], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    print(f"{host:15} {'up' if r.returncode == 0 else 'DOWN'}")
