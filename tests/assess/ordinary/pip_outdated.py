import json
import subprocess
import sys

result = subprocess.run([sys.executable, "-m", "pip", "list", "--outdated", "--format=json"],
                        capture_output=True, text=True, check=False)
if result.returncode != 0:
    print(result.stderr)
    sys.exit(result.returncode)
pkgs = json.loads(result.stdout or "[]")
if not pkgs:
    print("Everything is up to date.")
for p in pkgs:
    print(f"{p['name']:25} {p['version']:>12} -> {p['latest_version']}")
