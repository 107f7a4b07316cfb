# expect: HIGH
# rules: MAI001
import os
f = lambda: os.system('id')
f()
