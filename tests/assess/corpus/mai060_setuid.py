# expect: MEDIUM
# rules: MAI060
import os
os.setuid(0)
