# expect: LOW
# absent: MAI015 MAI011
import base64
data = base64.b64decode('aGVsbG8=')
print(data.decode())
