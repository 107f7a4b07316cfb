# expect: MEDIUM
# rules: MAI001
import os
os.system('ls -l')
