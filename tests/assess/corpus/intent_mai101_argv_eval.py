# expect: HIGH
# rules: MAI101 MAI010
import sys
print(eval(sys.argv[1]))
