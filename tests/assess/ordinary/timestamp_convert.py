#!/usr/bin/env python3
import datetime as dt
import sys


def convert(arg):
    if arg.isdigit():
        ts = int(arg)
        if ts > 10**11:  # milliseconds
            ts /= 1000
        d = dt.datetime.fromtimestamp(ts, tz=dt.timezone.utc)
        return d.isoformat()
    d = dt.datetime.fromisoformat(arg)
    if d.tzinfo is None:
        d = d.replace(tzinfo=dt.timezone.utc)
    return str(int(d.timestamp()))


for a in sys.argv[1:] or [str(int(dt.datetime.now().timestamp()))]:
    print(a, "->", convert(a))
