import csv
import json

INPUT = "data.json"
OUTPUT = "data.csv"

with open(INPUT) as f:
    records = json.load(f)

if isinstance(records, dict):
    records = [records]

fields = []
for rec in records:
    for k in rec:
        if k not in fields:
            fields.append(k)

with open(OUTPUT, "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=fields)
    w.writeheader()
    for rec in records:
        w.writerow({k: rec.get(k, "") for k in fields})

print("Done:", len(records), "rows,", len(fields), "columns")
