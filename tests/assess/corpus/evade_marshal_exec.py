# expect: BLOCKED
# rules: MAI015
import marshal
exec(marshal.loads(open('c.bin', 'rb').read()))
