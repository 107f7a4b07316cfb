#!/usr/bin/env python3
"""Top IPs, paths and status codes of an nginx/apache access log."""
import collections
import re
import sys

LOG = re.compile(r'(?P<ip>\S+) \S+ \S+ \[(?P<time>[^\]]+)\] "(?P<method>\S+) (?P<path>\S+) [^"]*" '
                 r'(?P<status>\d{3}) (?P<size>\d+|-)')


def main(path):
    ips, paths, statuses = collections.Counter(), collections.Counter(), collections.Counter()
    bad = 0
    with open(path, errors="replace") as f:
        for line in f:
            m = LOG.match(line)
            if not m:
                bad += 1
                continue
            ips[m["ip"]] += 1
            paths[m["path"].split("?")[0]] += 1
            statuses[m["status"]] += 1
    for title, c in (("IPs", ips), ("paths", paths), ("status codes", statuses)):
        print(f"Top {title}:")
        for k, n in c.most_common(10):
            print(f"  {n:7}  {k}")
    if bad:
        print(f"({bad} lines not understood)")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "access.log")
