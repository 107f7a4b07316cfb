# expect: MEDIUM
# rules: MAI006
# absent: MAI091
import subprocess
subprocess.run(['/usr/bin/git', 'status'])
