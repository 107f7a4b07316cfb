# expect: MEDIUM
# rules: MAI091
# absent: MAI102 MAI103
# A number read from outside carries no command: int(input()) formatted
# into a shell command is not a command built from outside data (the same
# with the text itself is HIGH, MAI102).
import os
n = int(input())
os.system("sleep %d" % n)
