#!/usr/bin/env python3
"""Convert a CSV file to JSON (a list of objects, one per row)."""
import csv
import json
import sys


def convert(src, dst):
    with open(src, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    with open(dst, "w", encoding="utf-8") as f:
        json.dump(rows, f, indent=2, ensure_ascii=False)
    return len(rows)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print("usage: csv_to_json.py input.csv output.json")
        raise SystemExit(2)
    n = convert(sys.argv[1], sys.argv[2])
    print(f"wrote {n} records to {sys.argv[2]}")
