# expect: MEDIUM
# rules: MAI001
from os import system as s
s('id')
