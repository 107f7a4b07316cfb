import csv
import sys

src, dst = sys.argv[1], sys.argv[2]
seen = set()
kept = dropped = 0
with open(src, newline="") as fin, open(dst, "w", newline="") as fout:
    reader = csv.reader(fin)
    writer = csv.writer(fout)
    writer.writerow(next(reader))
    for row in reader:
        key = tuple(c.strip().lower() for c in row)
        if key in seen:
            dropped += 1
            continue
        seen.add(key)
        writer.writerow(row)
        kept += 1
print(f"kept {kept}, dropped {dropped} duplicates")
