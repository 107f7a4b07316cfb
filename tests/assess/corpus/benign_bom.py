# expect: LOW
# absent: MAI018
print('bom')
