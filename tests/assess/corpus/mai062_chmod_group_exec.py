# expect: MEDIUM
# rules: MAI062
# absent: MAI061
import os
os.chmod('run.sh', 0o750)
