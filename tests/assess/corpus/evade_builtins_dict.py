# expect: BLOCKED
# rules: MAI014
__builtins__.__dict__['exec']('print(1)')
