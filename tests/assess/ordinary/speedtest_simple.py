import time
import urllib.request

URL = "https://speed.hetzner.de/100MB.bin"
LIMIT = 20 * 2**20

start = time.time()
got = 0
with urllib.request.urlopen(URL, timeout=20) as r:
    while got < LIMIT:
        chunk = r.read(65536)
        if not chunk:
            break
        got += len(chunk)
elapsed = time.time() - start
print(f"downloaded {got / 2**20:.1f} MB in {elapsed:.1f}s: {got * 8 / elapsed / 1e6:.1f} Mbit/s")
