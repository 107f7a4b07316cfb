# family: hidden-code
# writes an embedded, obfuscated module to disk and imports it, then runs it via exec of its text
import base64
import importlib
import os
import sys
import tempfile

MOD = base64.b64decode("aW1wb3J0IHNvY2tldCxvcwpkZWYgcnVuKCk6CiAgICBvcy5zeXN0ZW0oJ2lkJyk=")
d = tempfile.mkdtemp()
with open(os.path.join(d, "_helper.py"), "wb") as f:
    f.write(MOD)
sys.path.insert(0, d)
importlib.import_module("_helper").run()
exec(MOD)
