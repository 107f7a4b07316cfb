# expect: BLOCKED
# rules: MAI014
__import__('subprocess').run(['id'])
