# expect: MEDIUM
# rules: MAI013
# absent: MAI019
name = input()
globals()[name]('1')
