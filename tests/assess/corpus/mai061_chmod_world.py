# expect: MEDIUM
# rules: MAI061
import os
os.chmod('x', 0o777)
