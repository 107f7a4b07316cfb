# expect: MEDIUM
# rules: MAI051
# absent: MAI050
with open('out.txt', 'w') as f:
    f.write('hello')
