import csv
import statistics
import sys
from collections import defaultdict


def is_number(s):
    try:
        float(s)
        return True
    except ValueError:
        return False


def summarize(path):
    columns = defaultdict(list)
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            for k, v in row.items():
                columns[k].append(v)
    for name, values in columns.items():
        nums = [float(v) for v in values if v and is_number(v)]
        if len(nums) >= len(values) * 0.8 and nums:
            print(f"{name}: n={len(nums)} min={min(nums):g} max={max(nums):g} "
                  f"mean={statistics.mean(nums):.2f} median={statistics.median(nums):g}")
        else:
            distinct = len(set(values))
            print(f"{name}: text, {distinct} distinct values")


if __name__ == "__main__":
    summarize(sys.argv[1] if len(sys.argv) > 1 else "data.csv")
