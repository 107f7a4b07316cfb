# expect: LOW
# absent: MAI001
# each name of a for target list (first, last, in brackets) rebinds the imported one
from os import system, popen
from subprocess import getoutput, getstatusoutput
for _, system in [(1, print)]:
    system('ls')
for popen, _ in [(print, 1)]:
    popen('ls')
for (_, getoutput) in [(1, print)]:
    getoutput('ls')
for [_, getstatusoutput] in [(1, print)]:
    getstatusoutput('ls')
