# expect: BLOCKED
# rules: MAI001 MAI014
# a hidden name after else is the value when the condition is false
import os, sys
run = print if len(sys.argv) > 1 else getattr(os, 'sys' + 'tem')
run('id')
