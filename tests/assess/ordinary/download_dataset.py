"""Download and unpack the Iris dataset into ./data (once)."""
import io
import os
import zipfile

import requests

URL = "https://archive.ics.uci.edu/static/public/53/iris.zip"
DEST = "data"

if os.path.exists(os.path.join(DEST, "iris.data")):
    print("already downloaded")
else:
    r = requests.get(URL, timeout=60)
    r.raise_for_status()
    with zipfile.ZipFile(io.BytesIO(r.content)) as z:
        z.extractall(DEST)
    print("extracted:", ", ".join(sorted(os.listdir(DEST))))
