# expect: MEDIUM
# rules: MAI006
from subprocess import *
call(['id'])
