# expect: MEDIUM
# rules: MAI091 MAI006
import subprocess
subprocess.run(['git', 'status'])
