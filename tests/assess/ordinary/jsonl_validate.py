#!/usr/bin/env python3
import json
import sys

REQUIRED = ("id", "name", "created")

def check(path):
    bad = 0
    ids = set()
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                obj = json.loads(line)
            except ValueError as e:
                print(f"{path}:{lineno}: not JSON ({e})")
                bad += 1
                continue
            missing = [k for k in REQUIRED if k not in obj]
            if missing:
                print(f"{path}:{lineno}: missing {', '.join(missing)}")
                bad += 1
            if obj.get("id") in ids:
                print(f"{path}:{lineno}: duplicate id {obj['id']}")
                bad += 1
            ids.add(obj.get("id"))
    return bad

total = sum(check(p) for p in sys.argv[1:])
print("OK" if total == 0 else f"{total} problem(s)")
sys.exit(1 if total else 0)
