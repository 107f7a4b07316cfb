# expect: HIGH
# rules: MAI019
import builtins
n = input()
f = vars(builtins)[n] or print
