# expect: BLOCKED
# rules: MAI014
exec('import os; os.system("id")')
