import argparse
import pathlib
import re


def main():
    ap = argparse.ArgumentParser(description="Search and replace text in files")
    ap.add_argument("pattern")
    ap.add_argument("replacement")
    ap.add_argument("files", nargs="+")
    ap.add_argument("--regex", action="store_true", help="treat pattern as a regular expression")
    ap.add_argument("--dry-run", action="store_true")
    args = ap.parse_args()

    rx = re.compile(args.pattern if args.regex else re.escape(args.pattern))
    for name in args.files:
        p = pathlib.Path(name)
        if not p.is_file():
            print(f"{name}: not a file")
            continue
        text = p.read_text(encoding="utf-8")
        new, n = rx.subn(args.replacement, text)
        if n:
            print(f"{name}: {n} replacement(s)")
            if not args.dry_run:
                p.write_text(new, encoding="utf-8")


if __name__ == "__main__":
    main()
