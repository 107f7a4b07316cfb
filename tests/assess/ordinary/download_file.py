"""Download a file with a progress bar."""
import os
import requests

url = "https://www.python.org/ftp/python/3.12.0/python-3.12.0-docs-text.zip"
filename = os.path.basename(url)

with requests.get(url, stream=True, timeout=30) as r:
    r.raise_for_status()
    total = int(r.headers.get("content-length", 0))
    done = 0
    with open(filename, "wb") as f:
        for chunk in r.iter_content(chunk_size=8192):
            f.write(chunk)
            done += len(chunk)
            if total:
                pct = done * 100 // total
                print(f"\r[{'#' * (pct // 2):50}] {pct}%", end="", flush=True)
print(f"\nsaved {filename} ({done} bytes)")
