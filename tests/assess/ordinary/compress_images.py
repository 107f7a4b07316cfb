"""Shrink JPEGs in the current folder to at most 1600 px, into ./small/."""
from pathlib import Path

from PIL import Image

MAX = 1600
out = Path("small")
out.mkdir(exist_ok=True)
for p in sorted(Path(".").glob("*.jp*g")):
    with Image.open(p) as im:
        im.thumbnail((MAX, MAX))
        im.save(out / p.name, quality=82, optimize=True)
    print(f"{p.name}: {p.stat().st_size // 1024} KiB -> {(out / p.name).stat().st_size // 1024} KiB")
