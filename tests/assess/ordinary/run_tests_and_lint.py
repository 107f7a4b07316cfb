#!/usr/bin/env python3
"""Run the project's checks one after another and stop at the first failure."""
import subprocess
import sys
import time

STEPS = [
    ("format", ["black", "--check", "."]),
    ("lint", ["flake8", "--max-line-length=100"]),
    ("types", ["mypy", "src"]),
    ("tests", [sys.executable, "-m", "pytest", "-q"]),
]

for name, cmd in STEPS:
    t = time.time()
    print(f"==> {name}: {' '.join(cmd)}")
    try:
        rc = subprocess.call(cmd)
    except FileNotFoundError:
        print(f"    {cmd[0]} is not installed, skipping")
        continue
    print(f"    {name} finished in {time.time() - t:.1f}s with status {rc}")
    if rc != 0:
        sys.exit(rc)
print("all checks passed")
