# expect: MEDIUM
# rules: MAI054
import tempfile
name = tempfile.mktemp()
open(name + '.txt', 'r')
