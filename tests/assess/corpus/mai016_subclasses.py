# expect: BLOCKED
# rules: MAI016
for c in ().__class__.__base__.__subclasses__():
    print(c)
