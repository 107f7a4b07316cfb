# expect: HIGH
# rules: MAI019
import builtins, sys
f = getattr(builtins, sys.argv[1]) if len(sys.argv) > 1 else print
f('x')
