# expect: BLOCKED
# rules: MAI015
# a decoded payload in a list held in a name, exec of an item
import base64
parts = [base64.b64decode('cHJpbnQoMSk=')]
exec(parts[0])
