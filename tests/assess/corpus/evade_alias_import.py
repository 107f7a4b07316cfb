# expect: MEDIUM
# rules: MAI001
import os as o
o.system('id')
