# expect: MEDIUM
# rules: MAI041
import marshal
marshal.loads(b'')
