# expect: HIGH
# rules: MAI055
import shutil
shutil.rmtree("/home")
