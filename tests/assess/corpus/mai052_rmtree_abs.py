# expect: HIGH
# rules: MAI052
import shutil
shutil.rmtree('/home/user/data')
