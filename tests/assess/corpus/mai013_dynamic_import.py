# expect: MEDIUM
# rules: MAI013
import sys
name = sys.argv[1]
m = __import__(name)
