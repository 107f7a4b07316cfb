# -*- coding: utf-7 -*-
# expect: BLOCKED
# rules: MAI018
print('hello')
