#!/usr/bin/env python3
"""SHA-256 of many files in parallel; writes SHA256SUMS."""
import hashlib
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path


def digest(path):
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return path, h.hexdigest()


def main():
    files = [p for p in Path(sys.argv[1] if len(sys.argv) > 1 else ".").rglob("*") if p.is_file()]
    with ThreadPoolExecutor() as ex, open("SHA256SUMS", "w") as out:
        for path, hexd in ex.map(digest, files):
            out.write(f"{hexd}  {path}\n")
    print(len(files), "files hashed")


if __name__ == "__main__":
    main()
