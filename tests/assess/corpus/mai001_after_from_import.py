# expect: MEDIUM
# rules: MAI001
# "from os import path" binds path, and only path: os stays the module
import os
from os import path
os.system('id')
