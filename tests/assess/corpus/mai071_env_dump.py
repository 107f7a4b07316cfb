# expect: MEDIUM
# rules: MAI071
import os
print(dict(os.environ))
