# expect: MEDIUM
# rules: MAI006
from subprocess import Popen as P
P(['ls'])
