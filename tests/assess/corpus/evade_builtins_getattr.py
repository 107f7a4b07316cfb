# expect: BLOCKED
# rules: MAI014
import builtins
getattr(builtins, 'ev' + 'al')('1')
