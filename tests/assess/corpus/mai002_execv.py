# expect: MEDIUM
# rules: MAI002
import os
os.execv('/bin/ls', ['ls'])
