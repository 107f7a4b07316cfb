# expect: BLOCKED
# rules: MAI019 MAI015
import builtins, base64
getattr(builtins, base64.b64decode('ZXZhbA==').decode())('1')
