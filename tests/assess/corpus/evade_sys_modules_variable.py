# expect: BLOCKED
# rules: MAI001 MAI014
# sys.modules held in a name
import sys
mods = sys.modules
mods['os'].system('id')
