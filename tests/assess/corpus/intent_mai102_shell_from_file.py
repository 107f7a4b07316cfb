# expect: HIGH
# rules: MAI102 MAI001
import os
with open("jobs.txt") as f:
    for line in f:
        os.system("convert " + line.strip())
