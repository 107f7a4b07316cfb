import argparse
import csv
import sys

parser = argparse.ArgumentParser(description="Keep CSV rows where COLUMN matches VALUE")
parser.add_argument("csvfile")
parser.add_argument("column")
parser.add_argument("value")
parser.add_argument("-o", "--output", help="write here instead of stdout")
parser.add_argument("-i", "--ignore-case", action="store_true")
args = parser.parse_args()

out = open(args.output, "w", newline="") if args.output else sys.stdout
with open(args.csvfile, newline="") as f:
    reader = csv.DictReader(f)
    if args.column not in reader.fieldnames:
        sys.exit(f"no column {args.column!r}; columns: {', '.join(reader.fieldnames)}")
    writer = csv.DictWriter(out, fieldnames=reader.fieldnames)
    writer.writeheader()
    want = args.value.lower() if args.ignore_case else args.value
    kept = 0
    for row in reader:
        have = row[args.column].lower() if args.ignore_case else row[args.column]
        if have == want:
            writer.writerow(row)
            kept += 1
if out is not sys.stdout:
    out.close()
print(f"{kept} rows kept", file=sys.stderr)
