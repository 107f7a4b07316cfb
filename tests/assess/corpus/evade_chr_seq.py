# expect: BLOCKED
# rules: MAI014
m = __import__(chr(111) + chr(115))
m.system('id')
