# expect: BLOCKED
# rules: MAI040 MAI014
import importlib
m = importlib.import_module('_pick' + 'le')
getattr(m, ''.join(['lo', 'ad']))(open('x', 'rb'))
