# expect: BLOCKED
# rules: MAI015
import base64
payload = base64.b64decode('cHJpbnQoMSk=').decode()
exec(payload)
