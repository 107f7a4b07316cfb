# expect: LOW
# absent: MAI001
# each name of a for target list (first, last, in brackets) rebinds the imported one
from os import system, popen
for _, system in [(1, print)]:
    system('ls')
for popen, _ in [(print, 1)]:
    popen('ls')
for (_, system) in [(1, print)]:
    system('ls')
for [_, system] in [(1, print)]:
    system('ls')
