# expect: MEDIUM
# rules: MAI001
import os
f = lambda: os.system('id')
f()
