# expect: BLOCKED
# rules: MAI014
import ｏs
ｏs.system('id')
