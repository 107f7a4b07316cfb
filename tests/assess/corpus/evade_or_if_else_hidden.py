# expect: BLOCKED
# rules: MAI001 MAI014
# a hidden name met after the first operand is kept when a later comparison loses the chain
import os, sys
custom = None
run = custom or getattr(os, "sys" + "tem") if len(sys.argv) > 1 else print
run("id")
