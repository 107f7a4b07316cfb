# expect: MEDIUM
# rules: MAI063
# absent: MAI061
import os, sys
os.chmod('x', int(sys.argv[1], 8))
