# expect: MEDIUM
# rules: MAI061
# a negative operand of an arithmetic mode is folded too
import os
os.chmod('shared', 0o1777 + -0o1000)
