# expect: BLOCKED
# rules: MAI014
# absent: MAI001
# A raw string keeps its backslash: this names no os.system (Python agrees).
import os
f = getattr(os, r'\x73ystem', None)
if f:
    f('id')
