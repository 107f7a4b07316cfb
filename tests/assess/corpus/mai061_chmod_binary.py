# expect: MEDIUM
# rules: MAI061
# A mode written in binary (0b111111111 is 0o777) is read in base 2.
import os
os.chmod('x', 0b111111111)
