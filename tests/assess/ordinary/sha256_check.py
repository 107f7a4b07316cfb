# Check downloaded files against a SHA256SUMS list in the current directory.
from Crypto.Hash import SHA256

bad = 0
with open("SHA256SUMS") as sums:
    for line in sums:
        want, name = line.split()
        h = SHA256.new()
        with open(name.lstrip("*"), "rb") as f:
            for chunk in iter(lambda: f.read(65536), b""):
                h.update(chunk)
        ok = h.hexdigest() == want
        bad += not ok
        print(("OK  " if ok else "BAD ") + name)
print("%d bad" % bad)
