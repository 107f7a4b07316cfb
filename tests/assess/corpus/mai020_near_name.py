# expect: LOW
# absent: MAI020 MAI021
ctypes_doc = 'ctypes.CDLL loads a library'
print(ctypes_doc)
