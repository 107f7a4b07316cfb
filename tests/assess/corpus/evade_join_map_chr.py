# expect: BLOCKED
# rules: MAI014
m = __import__(''.join(map(chr, [111, 115])))
m.popen('id')
