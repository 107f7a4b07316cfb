# expect: MEDIUM
# rules: MAI050
open('../../x.txt', mode='a').write('x')
