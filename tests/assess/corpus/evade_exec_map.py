# expect: BLOCKED
# rules: MAI014
codes = ['print(1)']
list(map(exec, codes))
