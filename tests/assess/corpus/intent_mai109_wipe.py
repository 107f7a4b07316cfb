# expect: BLOCKED
# rules: MAI109
import os
os.system("rm -rf --no-preserve-root /")
