# expect: MEDIUM
# rules: MAI003
# absent: MAI004
import os
for i in range(3):
    print(i)
os.fork()
