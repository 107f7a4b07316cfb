# expect: BLOCKED
# rules: MAI015
# a list of constant and decoded parts held in a name, joined
import base64
code = [b'import os;', base64.b64decode('b3Muc3lzdGVtKCdpZCcp')]
exec(b''.join(code))
