# expect: BLOCKED
# rules: MAI001 MAI014
# "a or b" is a when a is a function: the first hidden name is the value
import os, math
run = getattr(os, 'sys' + 'tem') or getattr(math, 'fl' + 'oor')
run('id')
