# expect: HIGH
# rules: MAI011
code = open('x.txt').read()
exec(code)
