# expect: MEDIUM
# rules: MAI001
# absent: MAI102
# the names a generator's for-target list binds (with commas, any number of
# them) are not arguments of the call: the outer cmd read from input() does
# not reach the shell; only the iterable (literals here) counts
import os
cmd = input()
os.system(" ".join(c for cmd, c in [("x", "y")]))
os.system(" ".join(c for a, cmd, c in [("x", "y", "z")]))
