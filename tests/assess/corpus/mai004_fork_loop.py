# expect: BLOCKED
# rules: MAI004
import os
while True:
    os.fork()
