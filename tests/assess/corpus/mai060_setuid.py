# expect: HIGH
# rules: MAI060
import os
os.setuid(0)
