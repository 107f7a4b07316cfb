"""Sum the hours in a timesheet file with lines like: 2024-03-04 09:15-17:45"""
import re
import sys
from collections import defaultdict
from datetime import datetime, timedelta

LINE = re.compile(r"^(\d{4}-\d{2}-\d{2})\s+(\d{1,2}:\d{2})-(\d{1,2}:\d{2})")
per_week = defaultdict(timedelta)

with open(sys.argv[1] if len(sys.argv) > 1 else "timesheet.txt") as f:
    for line in f:
        m = LINE.match(line)
        if not m:
            continue
        day, start, end = m.groups()
        t0 = datetime.strptime(f"{day} {start}", "%Y-%m-%d %H:%M")
        t1 = datetime.strptime(f"{day} {end}", "%Y-%m-%d %H:%M")
        if t1 < t0:
            t1 += timedelta(days=1)
        year, week, _ = t0.isocalendar()
        per_week[(year, week)] += t1 - t0

for (year, week), total in sorted(per_week.items()):
    hours = total.total_seconds() / 3600
    print(f"{year}-W{week:02}: {hours:5.2f} h {'(overtime)' if hours > 40 else ''}")
