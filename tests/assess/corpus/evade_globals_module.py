# expect: BLOCKED
# rules: MAI001 MAI014
# a module taken out of globals() by its name is reached in a hidden way
import os
globals()['os'].system('id')
