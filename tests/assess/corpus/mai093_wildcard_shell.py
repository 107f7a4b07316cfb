# expect: MEDIUM
# rules: MAI093 MAI005
import subprocess
subprocess.call('chown user *', shell=1)
