# expect: LOW
# absent: MAI019 MAI013
class Box:
    pass
b = Box()
for k in list(b.__dict__):
    del b.__dict__[k]
