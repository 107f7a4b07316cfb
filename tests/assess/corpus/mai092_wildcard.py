# expect: MEDIUM
# rules: MAI092 MAI001
import os
os.system('tar czf backup.tgz *')
