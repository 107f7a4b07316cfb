# expect: HIGH
# rules: MAI071
import os
print(dict(os.environ))
