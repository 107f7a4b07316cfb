# expect: LOW
# absent: MAI001
from os import system
def system(cmd):
    return cmd
system('ls')
