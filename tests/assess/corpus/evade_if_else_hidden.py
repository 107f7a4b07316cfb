# expect: BLOCKED
# rules: MAI001 MAI014
# a hidden name first in a chain a later comparison loses is the value
import os, sys
run = getattr(os, 'sys' + 'tem') if len(sys.argv) > 1 else print
run('id')
