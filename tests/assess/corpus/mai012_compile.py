# expect: MEDIUM
# rules: MAI012
src = input()
c = compile(src, 'x', 'exec')
