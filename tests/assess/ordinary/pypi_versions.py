#!/usr/bin/env python3
"""Show the latest version of some PyPI packages."""
import json
from urllib.request import urlopen

PACKAGES = ["requests", "flask", "numpy", "pandas", "django"]

for name in PACKAGES:
    with urlopen(f"https://pypi.org/pypi/{name}/json", timeout=10) as r:
        info = json.load(r)["info"]
    print(f"{name:10} {info['version']:10} {info['summary'][:50]}")
