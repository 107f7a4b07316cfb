# expect: MEDIUM
# rules: MAI001
import os
run = os.system
run('id')
