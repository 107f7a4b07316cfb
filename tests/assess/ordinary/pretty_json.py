import json, sys
# pretty-print a JSON file (or stdin) with sorted keys
src = open(sys.argv[1]) if len(sys.argv) > 1 else sys.stdin
try:
    data = json.load(src)
except json.JSONDecodeError as e:
    print(f"invalid JSON: {e}")
    sys.exit(1)
print(json.dumps(data, indent=4, sort_keys=True))
