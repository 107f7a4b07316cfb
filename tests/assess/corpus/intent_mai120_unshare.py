# expect: HIGH
# rules: MAI120
import os
os.unshare(os.CLONE_NEWUSER)
