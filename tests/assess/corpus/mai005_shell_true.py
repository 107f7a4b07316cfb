# expect: MEDIUM
# rules: MAI005 MAI006
import subprocess
subprocess.run('ls | wc', shell=True)
