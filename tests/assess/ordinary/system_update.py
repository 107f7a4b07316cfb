#!/usr/bin/env python3
# Update the system's packages (Debian/Ubuntu) and show how long it took.
import subprocess
import time

STEPS = [
    ["sudo", "apt", "update"],
    ["sudo", "apt", "-y", "upgrade"],
    ["sudo", "apt", "-y", "autoremove"],
]

start = time.time()
for cmd in STEPS:
    print("$", " ".join(cmd))
    if subprocess.run(cmd).returncode != 0:
        print("step failed, stopping")
        break
print(f"finished in {time.time() - start:.0f}s")
