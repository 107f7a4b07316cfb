# expect: MEDIUM
# rules: MAI053
# absent: MAI055 MAI052
import shutil
shutil.rmtree("build")
