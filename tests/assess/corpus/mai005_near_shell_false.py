# expect: MEDIUM
# rules: MAI006
# absent: MAI005
import subprocess
subprocess.run(['ls'], shell=False)
