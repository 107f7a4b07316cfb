# expect: HIGH
# rules: MAI013
import sys
name = sys.argv[1]
m = __import__(name)
