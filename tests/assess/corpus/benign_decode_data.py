# expect: LOW
# absent: MAI015
import base64, zlib, json
raw = zlib.decompress(base64.b64decode('eJyrVkrLz1eyUkpKLFKqBQAdegQ0'))
print(json.loads(raw))
