#!/usr/bin/env python3
"""Sort a CSV by one or more columns: csv_sort_cli.py data.csv -k price -k name -r"""
import argparse
import csv
import sys


def keyfunc(cols, numeric):
    def key(row):
        out = []
        for c in cols:
            v = row[c]
            if numeric:
                try:
                    v = float(v)
                except ValueError:
                    v = float("inf")
            out.append(v)
        return out
    return key


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("-k", "--key", action="append", required=True)
    ap.add_argument("-n", "--numeric", action="store_true")
    ap.add_argument("-r", "--reverse", action="store_true")
    a = ap.parse_args(argv)
    with open(a.file, newline="") as f:
        reader = csv.DictReader(f)
        rows = sorted(reader, key=keyfunc(a.key, a.numeric), reverse=a.reverse)
        w = csv.DictWriter(sys.stdout, fieldnames=reader.fieldnames)
        w.writeheader()
        w.writerows(rows)


if __name__ == "__main__":
    main()
