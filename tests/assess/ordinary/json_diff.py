import json
import sys


def diff(a, b, path=""):
    if type(a) != type(b):
        print(f"{path or '/'}: type {type(a).__name__} -> {type(b).__name__}")
        return
    if isinstance(a, dict):
        for k in sorted(set(a) | set(b)):
            p = f"{path}/{k}"
            if k not in a:
                print(f"{p}: added {b[k]!r}")
            elif k not in b:
                print(f"{p}: removed {a[k]!r}")
            else:
                diff(a[k], b[k], p)
    elif isinstance(a, list):
        for i in range(max(len(a), len(b))):
            p = f"{path}[{i}]"
            if i >= len(a):
                print(f"{p}: added {b[i]!r}")
            elif i >= len(b):
                print(f"{p}: removed {a[i]!r}")
            else:
                diff(a[i], b[i], p)
    elif a != b:
        print(f"{path}: {a!r} -> {b!r}")


with open(sys.argv[1]) as f1, open(sys.argv[2]) as f2:
    diff(json.load(f1), json.load(f2))
