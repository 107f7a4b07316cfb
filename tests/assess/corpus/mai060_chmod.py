# expect: HIGH
# rules: MAI060
import os
os.chmod('x', 0o777)
