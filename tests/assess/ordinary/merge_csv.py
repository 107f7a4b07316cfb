"""Merge every CSV in the current folder into merged.csv (same header expected)."""
import csv
import glob

out_name = "merged.csv"
files = sorted(f for f in glob.glob("*.csv") if f != out_name)
header = None
count = 0
with open(out_name, "w", newline="") as out:
    writer = csv.writer(out)
    for name in files:
        with open(name, newline="") as f:
            reader = csv.reader(f)
            h = next(reader, None)
            if h is None:
                continue
            if header is None:
                header = h
                writer.writerow(header + ["source_file"])
            elif h != header:
                print(f"warning: {name} has a different header, skipped")
                continue
            for row in reader:
                writer.writerow(row + [name])
                count += 1
print(f"merged {len(files)} files, {count} rows -> {out_name}")
