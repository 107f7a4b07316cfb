# expect: MEDIUM
# rules: MAI006
# absent: MAI005
import subprocess
subprocess.call(['ls'], shell=0)
subprocess.call(['ls'], shell=[])
subprocess.call(['ls'], shell=None)
