# expect: HIGH
# rules: MAI001 MAI102
# what is typed, in the else branch of a conditional expression, reaches the
# shell: the expression goes on after "else" (both branches count)
import os
flag = True
cmd = "ls" if flag else input()
os.system(cmd)
