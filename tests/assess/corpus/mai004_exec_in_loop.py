# expect: BLOCKED
# rules: MAI004
# code exec'd inside a loop runs in the loop
for x in range(3):
    exec("import os; os.fork()")
