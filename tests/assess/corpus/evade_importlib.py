# expect: BLOCKED
# rules: MAI014
import importlib
importlib.import_module('o' + 's').system('id')
