# expect: BLOCKED
# rules: MAI012 MAI014
c = __import__('co' + 'de').InteractiveConsole()
c.push('import os')
