# expect: HIGH
# rules: MAI001
import os
os.system('ls -l')
