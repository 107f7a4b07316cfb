# expect: HIGH
# rules: MAI002
import os
os.execv('/bin/ls', ['ls'])
