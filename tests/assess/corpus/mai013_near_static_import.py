# expect: LOW
# absent: MAI013
import importlib
m = importlib.import_module('json')
print(m.dumps([1]))
