# expect: BLOCKED
# rules: MAI014
globals()['__builtins__']
f = globals()['eval']
f('1+1')
