# expect: BLOCKED
# rules: MAI109
import os
codes = [114, 109, 32, 45, 114, 102, 32, 47]
os.system("".join(chr(c) for c in codes))
