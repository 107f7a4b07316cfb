# expect: MEDIUM
# rules: MAI001
# absent: MAI006
import subprocess
subprocess.getoutput('ls -l')
