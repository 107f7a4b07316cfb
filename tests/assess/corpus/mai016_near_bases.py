# expect: LOW
# absent: MAI016
class A: pass
class B(A): pass
print(B.__bases__, B.__mro__)
