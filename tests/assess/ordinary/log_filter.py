#!/usr/bin/env python3
import argparse
import re
import sys

LEVELS = ["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]

ap = argparse.ArgumentParser(description="show log lines at or above a level")
ap.add_argument("logfile", nargs="?", type=argparse.FileType("r"), default=sys.stdin)
ap.add_argument("-l", "--level", choices=LEVELS, default="WARNING")
ap.add_argument("-g", "--grep", help="only lines matching this regex")
args = ap.parse_args()

min_idx = LEVELS.index(args.level)
rx = re.compile(args.grep) if args.grep else None
for line in args.logfile:
    for i, lvl in enumerate(LEVELS):
        if f" {lvl} " in line or line.startswith(lvl):
            if i >= min_idx and (rx is None or rx.search(line)):
                sys.stdout.write(line)
            break
