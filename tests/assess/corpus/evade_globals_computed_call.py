# expect: HIGH
# rules: MAI013
name = input()
globals()[name]('1')
