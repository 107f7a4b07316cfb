#!/bin/sh
# Benchmark (not part of the suite): how many of Bandit's own findings on
# Bandit's examples/ the native assessor catches, for the Bandit tests within
# the assessor's scope (code execution, process starts, deserialization,
# archives, temporary files, permissions, binding, logging listeners,
# bidirectional characters). A Bandit finding counts as caught when
# `mai-agent check` reports a finding with the same Bandit id on a line of
# the Bandit finding's range, at the same or a higher severity.
#
# Usage: tests/bench/bandit-examples.sh BANDIT_CHECKOUT [MAI_AGENT]
#   BANDIT_CHECKOUT  a checkout (or unpacked archive) of Bandit's repository;
#                    nothing of it is copied anywhere
#   MAI_AGENT        default build/agent/mai-agent
# Bandit itself: the checkout's own code is run when python3 can import its
# dependencies (stevedore, PyYAML, rich; Debian: python3-stevedore
# python3-yaml python3-rich), so the figure is against that version; else
# `bandit` on PATH, whose older releases lack some of the tests.
# Environment: MIN_PERCENT=95 makes the script fail below that figure;
# TIMEOUT_S (600) is the deadline of each Bandit and mai-agent run.
set -eu

checkout=${1:?usage: $0 BANDIT_CHECKOUT [MAI_AGENT]}
agent=${2:-build/agent/mai-agent}

[ -d "$checkout/examples" ] || { echo "$checkout has no examples/ directory" >&2; exit 2; }
[ -x "$agent" ] || { echo "no mai-agent at $agent" >&2; exit 2; }
agent=$(cd "$(dirname "$agent")" && pwd)/$(basename "$agent")

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
mkdir "$tmp/cfg" "$tmp/ep"

# Bandit finds its plugins through package entry points: a throw-away
# distribution record in $tmp/ep declares those of the checkout's setup.cfg.
py=/usr/bin/python3
[ -x "$py" ] || py=python3
if "$py" - "$checkout" "$tmp/ep" <<'PY' 2>"$tmp/ep.err"
import configparser, os, sys
import stevedore, yaml, rich  # noqa: F401  (Bandit's dependencies)
checkout, ep = sys.argv[1:]
cp = configparser.ConfigParser()
cp.read(os.path.join(checkout, "setup.cfg"))
d = os.path.join(ep, "bandit_checkout-0.dist-info")
os.makedirs(d)
with open(os.path.join(d, "METADATA"), "w") as f:
    f.write("Metadata-Version: 2.1\nName: bandit-checkout\nVersion: 0\n")
with open(os.path.join(d, "entry_points.txt"), "w") as f:
    for group, body in cp["entry_points"].items():
        f.write("[%s]\n" % group)
        for line in body.strip().splitlines():
            if line.strip() and not line.strip().startswith("#"):
                f.write(line.strip() + "\n")
PY
then
	echo "bandit: the checkout's code ($checkout)"
	(cd "$checkout" && PYTHONPATH="$tmp/ep:$checkout" timeout "${TIMEOUT_S:-600}" "$py" -m bandit -q -r -f json \
		-o "$tmp/bandit.json" examples) >/dev/null 2>"$tmp/bandit.err" || true
elif command -v bandit >/dev/null; then
	echo "bandit: $(command -v bandit) (the checkout's code cannot run: $(tail -1 "$tmp/ep.err"))"
	(cd "$checkout" && timeout "${TIMEOUT_S:-600}" bandit -q -r -f json -o "$tmp/bandit.json" examples) \
		>/dev/null 2>"$tmp/bandit.err" || true
else
	echo "no way to run Bandit: install python3-stevedore python3-yaml python3-rich, or bandit" >&2
	exit 2
fi
[ -s "$tmp/bandit.json" ] || { echo "bandit wrote no report:" >&2; cat "$tmp/bandit.err" >&2; exit 2; }

(cd "$checkout" && timeout "${TIMEOUT_S:-600}" "$agent" check --native-only --format json --config-dir "$tmp/cfg" \
	examples) >"$tmp/mai.json" 2>"$tmp/mai.err" || true
[ -s "$tmp/mai.json" ] || { echo "mai-agent wrote nothing:" >&2; cat "$tmp/mai.err" >&2; exit 2; }

"$py" - "$tmp/bandit.json" "$tmp/mai.json" "$checkout" "${MIN_PERCENT:-0}" <<'PY'
import collections, json, os, sys

bandit_path, mai_path, checkout, min_percent = sys.argv[1:]
# The Bandit tests within the assessor's scope (issue 17).
SCOPE = ["B102", "B103", "B104", "B202", "B301", "B302", "B306", "B307", "B506", "B602",
         "B603", "B604", "B605", "B606", "B607", "B609", "B612", "B613", "B614"]
RANK = {"LOW": 1, "MEDIUM": 2, "HIGH": 3, "CRITICAL": 4}

def rel(p):
    p = os.path.normpath(p)
    return p[p.index("examples"):] if "examples" in p else p

bandit = [r for r in json.load(open(bandit_path))["results"] if r["test_id"] in SCOPE]
mai = collections.defaultdict(list)
levels = {}
for f in json.load(open(mai_path)):
    levels[rel(f["path"])] = f["level"]
    for x in f["findings"]:
        mai[rel(f["path"])].append(x)

per = collections.OrderedDict((t, collections.Counter()) for t in SCOPE)
misses = []
for b in bandit:
    name = rel(b["filename"])
    lines = set(b.get("line_range") or [b["line_number"]]) | {b["line_number"]}
    same = [x for x in mai[name] if x.get("bandit_id") == b["test_id"] and x["line"] in lines]
    c = per[b["test_id"]]
    c["bandit"] += 1
    if any(RANK[x["severity"]] >= RANK[b["issue_severity"]] for x in same):
        c["caught"] += 1
        continue
    why = "lower severity (%s)" % max(same, key=lambda x: RANK[x["severity"]])["severity"] \
        if same else "no finding"
    c["lower" if same else "missed"] += 1
    src = b.get("code", "").strip().splitlines()
    misses.append("%s %s:%d %s [%s] %s" % (b["test_id"], name, b["line_number"],
                                           b["issue_severity"], why, src[1:2] or src[:1]))

print("%-6s %7s %7s %7s %7s" % ("test", "bandit", "caught", "lower", "missed"))
tot = collections.Counter()
for t, c in per.items():
    if c["bandit"]:
        print("%-6s %7d %7d %7d %7d" % (t, c["bandit"], c["caught"], c["lower"], c["missed"]))
    tot.update(c)
pct = 100.0 * tot["caught"] / tot["bandit"] if tot["bandit"] else 100.0
print("%-6s %7d %7d %7d %7d" % ("total", tot["bandit"], tot["caught"], tot["lower"], tot["missed"]))
print("caught: %d of %d (%.1f%%)" % (tot["caught"], tot["bandit"], pct))
for m in misses:
    print("  miss: " + m)
files = sorted({rel(b["filename"]) for b in bandit})
print("levels of the files with in-scope findings:")
for n in files:
    print("  %-45s %s" % (n, levels.get(n, "?")))
sys.exit(1 if pct < float(min_percent) else 0)
PY
