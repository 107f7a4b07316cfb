# expect: LOW
# absent: MAI017
class C: pass
c = C()
setattr(c, 'x', 1)
