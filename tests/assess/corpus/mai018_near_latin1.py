# -*- coding: latin-1 -*-
# expect: LOW
# absent: MAI018
print('café')
