import argparse
import hashlib
import sys

parser = argparse.ArgumentParser(description="print file checksums")
parser.add_argument("files", nargs="*")
parser.add_argument("-a", "--algorithm", default="sha256", choices=sorted(hashlib.algorithms_guaranteed))
parser.add_argument("-c", "--check", metavar="SUMFILE", help="verify against a checksum file")
args = parser.parse_args()


def digest(path):
    h = hashlib.new(args.algorithm)
    with open(path, "rb") as f:
        while chunk := f.read(1 << 16):
            h.update(chunk)
    return h.hexdigest()


if args.check:
    failed = 0
    for line in open(args.check):
        expected, name = line.split(maxsplit=1)
        name = name.strip().lstrip("*")
        ok = digest(name) == expected
        failed += not ok
        print(f"{name}: {'OK' if ok else 'FAILED'}")
    sys.exit(1 if failed else 0)
for f in args.files:
    print(f"{digest(f)}  {f}")
