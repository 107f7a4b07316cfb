# expect: BLOCKED
# rules: MAI014
import sys
sys.modules['os'].system('id')
