# expect: BLOCKED
# rules: MAI014
ｅｘｅｃ('print(1)')
