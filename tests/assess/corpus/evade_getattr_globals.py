# expect: BLOCKED
# rules: MAI014
# getattr on globals() names what globals()[...] names: here eval.
f = getattr(globals(), 'eval')
f('1+1')
