# expect: MEDIUM
# rules: MAI001
# a parenthesized target list takes the values item by item
import os
(a, run) = (1, os.system)
run('id')
