# expect: MEDIUM
# rules: MAI053
# absent: MAI052
import os
os.remove('old.log')
