# expect: MEDIUM
# rules: MAI005
import subprocess
subprocess.call('ls', shell='False')
subprocess.call('ls', shell=[True])
