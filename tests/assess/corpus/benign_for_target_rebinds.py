# expect: LOW
# absent: MAI001
# the last name of a for target list rebinds the imported one
from os import system
for _, system in [(1, print)]:
    system('ls')
