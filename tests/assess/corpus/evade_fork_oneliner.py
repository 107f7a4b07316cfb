# expect: BLOCKED
# rules: MAI004
import os
while 1: os.fork()
