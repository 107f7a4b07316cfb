# expect: BLOCKED
# rules: MAI015
# a decoded payload joined
import base64
exec(b''.join([base64.b64decode('cHJpbnQoMSk=')]))
