# expect: HIGH
# rules: MAI070
import os
key = os.path.expanduser('~/.ssh/id_rsa')
