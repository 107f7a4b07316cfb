import re
import sys
from urllib.parse import urljoin

import requests

url = sys.argv[1] if len(sys.argv) > 1 else "https://www.python.org/"
html = requests.get(url, timeout=10).text
links = set()
for href in re.findall(r'href=["\'](.*?)["\']', html, flags=re.I):
    if href.startswith(("mailto:", "javascript:", "#")):
        continue
    links.add(urljoin(url, href))
for link in sorted(links):
    print(link)
print(len(links), "links", file=sys.stderr)
