import argparse
from pathlib import Path

from PIL import Image


def main():
    ap = argparse.ArgumentParser(description="Resize images")
    ap.add_argument("images", nargs="+", type=Path)
    ap.add_argument("--width", type=int, required=True)
    ap.add_argument("--suffix", default="_small")
    ap.add_argument("--format", choices=["png", "jpeg", "webp"])
    a = ap.parse_args()
    for src in a.images:
        with Image.open(src) as im:
            h = round(im.height * a.width / im.width)
            out = im.resize((a.width, h), Image.LANCZOS)
            ext = f".{a.format}" if a.format else src.suffix
            dst = src.with_name(src.stem + a.suffix + ext)
            out.save(dst)
            print(f"{src} -> {dst} ({a.width}x{h})")


if __name__ == "__main__":
    main()
