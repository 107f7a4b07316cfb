# expect: BLOCKED
# rules: MAI054 MAI014
t = __import__('temp' + 'file')
getattr(t, 'mk' + 'temp')()
