# expect: BLOCKED
# rules: MAI014
import builtins
run, x = getattr(builtins, 'ev' + 'al'), 1
run('1')
