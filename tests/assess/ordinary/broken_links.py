#!/usr/bin/env python3
"""Check the links of one page for 4xx/5xx answers."""
import re
import sys
from urllib.parse import urljoin, urlparse

import requests

start = "https://example.com/"
if len(sys.argv) > 1:
    start = sys.argv[1]

session = requests.Session()
html = session.get(start, timeout=10).text
urls = {urljoin(start, h) for h in re.findall(r'href="([^"#]+)"', html)}
urls = {u for u in urls if urlparse(u).scheme in ("http", "https")}
bad = 0
for u in sorted(urls):
    try:
        code = session.head(u, allow_redirects=True, timeout=10).status_code
    except requests.RequestException as e:
        code = type(e).__name__
    if code != 200:
        bad += 1
        print(f"{code}  {u}")
print(f"checked {len(urls)} links, {bad} not OK")
