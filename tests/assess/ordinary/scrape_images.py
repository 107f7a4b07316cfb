# Download every image of one web page into ./page_images
import os
import re
from urllib.parse import urljoin

import requests

PAGE = "https://www.python.org/about/"
OUT = "page_images"

os.makedirs(OUT, exist_ok=True)
html = requests.get(PAGE, timeout=10).text
srcs = re.findall(r'<img[^>]+src="([^"]+)"', html)
for i, src in enumerate(srcs):
    url = urljoin(PAGE, src)
    name = os.path.basename(url.split("?")[0]) or f"image{i}"
    r = requests.get(url, timeout=10)
    if r.ok:
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(r.content)
        print("saved", name)
