#!/usr/bin/env python3
# Checks whether a list of websites is up.
import time
import urllib.error
import urllib.request

SITES = [
    "https://www.python.org",
    "https://pypi.org",
    "https://docs.python.org/3/",
    "https://github.com",
    "https://example.com",
]


def check(url):
    start = time.time()
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            code = r.status
    except urllib.error.HTTPError as e:
        code = e.code
    except (urllib.error.URLError, OSError) as e:
        return f"DOWN ({e})", None
    return str(code), time.time() - start


for site in SITES:
    status, elapsed = check(site)
    t = f"{elapsed * 1000:.0f} ms" if elapsed is not None else "-"
    print(f"{site:40} {status:>10} {t:>10}")
