# expect: MEDIUM
# rules: MAI001
import os
print(f"{os.system('id')}")
