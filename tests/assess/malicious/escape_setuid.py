# family: sandbox-escape
# tries to become root and read the shadow file
import os

try:
    os.setuid(0)
    os.setgid(0)
except PermissionError:
    pass
print(open("/etc/shadow").read())
