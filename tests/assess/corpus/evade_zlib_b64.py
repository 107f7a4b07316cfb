# expect: BLOCKED
# rules: MAI015
import zlib, base64
exec(zlib.decompress(base64.b64decode(b'eJw=')))
