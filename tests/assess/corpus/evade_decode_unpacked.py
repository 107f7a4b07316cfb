# expect: BLOCKED
# rules: MAI015
# A decoded payload stays decoded inside a list display, unpacked into exec.
import base64
exec(*[base64.b64decode('cHJpbnQoMSk=')])
