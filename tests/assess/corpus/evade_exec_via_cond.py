# expect: BLOCKED
# rules: MAI014
import builtins
run = getattr(builtins, 'ex' + 'ec') if True else print
run('print(1)')
