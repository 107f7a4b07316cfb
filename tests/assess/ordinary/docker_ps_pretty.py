import json
import subprocess

out = subprocess.run(["docker", "ps", "--format", "{{json .}}"], capture_output=True, text=True)
if out.returncode:
    print(out.stderr.strip())
else:
    for line in out.stdout.splitlines():
        c = json.loads(line)
        print(f"{c['Names']:25} {c['Image']:30} {c['Status']}")
