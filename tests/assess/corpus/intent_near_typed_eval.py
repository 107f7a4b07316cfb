# expect: MEDIUM
# rules: MAI010
# absent: MAI101 MAI100
# a calculator: what the person running it types, in a sandbox
while True:
    expr = input("> ")
    print(eval(expr))
