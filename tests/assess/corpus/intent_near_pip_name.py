# expect: MEDIUM
# rules: MAI006
# absent: MAI129
# a package by name from the configured index: no network in the sandbox
import subprocess, sys
subprocess.check_call([sys.executable, "-m", "pip", "install", "requests"])
