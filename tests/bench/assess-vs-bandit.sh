#!/bin/sh
# Benchmark (not part of the suite): whole-process `mai-agent check` against
# `bandit -r` on the same Python tree, side by side in one run: wall time,
# MB/s, peak RSS and the ratio; then one small file as a whole process (and
# its instructions, with valgrind).
# Targets (issue #3): >= 100x faster than Bandit, peak RSS <= 16 MB, one
# small file <= 5 ms.
#
# Usage: tests/bench/assess-vs-bandit.sh [MAI_AGENT] [TREE]
#   MAI_AGENT  a release build of mai-agent (default: build-release/agent/mai-agent;
#              make one with: meson setup build-release --buildtype=release
#              -Dtests=disabled && ninja -C build-release)
#   TREE       default /usr/lib/python3.11
# Environment: SMALL_RUNS (50) runs of the small file. Every process is given
# a deadline (TIMEOUT_S, 600 s) and the script says which one ran out.
# Medians: the p50 of pct.py, the benchmarks' one percentile definition.
set -eu
bench=$(cd "$(dirname "$0")" && pwd)

agent=${1:-build-release/agent/mai-agent}
tree=${2:-/usr/lib/python3.11}

[ -x "$agent" ] || { echo "no mai-agent at $agent (see the usage in $0)" >&2; exit 2; }
command -v bandit >/dev/null || { echo "bandit is not installed (apt-get install bandit)" >&2; exit 2; }
[ -d "$tree" ] || { echo "$tree is not a directory" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
# An empty config dir: built-in rules, no config noise.
mkdir "$tmp/cfg"

# Runs a command and prints "wall_seconds cpu_seconds peak_rss_kib". CPU time
# (user + system) is reported too because wall time on a shared 2-core
# machine moves with whatever else runs.
measure() {
	python3 - "${TIMEOUT_S:-600}" "$@" <<'PY'
import resource, subprocess, sys, time
t = time.monotonic()
try:
    subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   timeout=float(sys.argv[1]))
except subprocess.TimeoutExpired:
    sys.exit("gave up after %s s waiting for %s" % (sys.argv[1], " ".join(sys.argv[2:])))
wall = time.monotonic() - t
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%.3f %.3f %d" % (wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss))
PY
}

files=$(find "$tree" -type f -name '*.py' | wc -l)
bytes=$(find "$tree" -type f -name '*.py' -printf '%s\n' | awk '{s += $1} END {print s}')
mb=$(awk -v b="$bytes" 'BEGIN {printf "%.1f", b / 1048576}')
echo "tree: $tree ($files .py files, $mb MB)"

set -- $(measure "$agent" check --native-only --format json --config-dir "$tmp/cfg" "$tree")
mai_wall=$1 mai_cpu=$2 mai_rss=$3
set -- $(measure bandit -r -q -f json "$tree")
bandit_wall=$1 bandit_cpu=$2 bandit_rss=$3

awk -v mw="$mai_wall" -v mc="$mai_cpu" -v mr="$mai_rss" -v bw="$bandit_wall" -v bc="$bandit_cpu" \
    -v br="$bandit_rss" -v mb="$mb" 'BEGIN {
	printf "%-22s %10s %10s %10s %14s\n", "", "wall (s)", "CPU (s)", "MB/s", "peak RSS (MB)"
	printf "%-22s %10.3f %10.3f %10.1f %14.1f\n", "mai-agent check", mw, mc, mb / mw, mr / 1024
	printf "%-22s %10.3f %10.3f %10.1f %14.1f\n", "bandit -r", bw, bc, mb / bw, br / 1024
	printf "ratio (bandit / mai): %.0fx faster by wall time, %.0fx by CPU time; target >= 100x: %s\n",
		bw / mw, bc / mc, (bw / mw >= 100) ? "met" : "NOT met"
	printf "mai peak RSS target <= 16 MB: %s\n", (mr / 1024 <= 16) ? "met" : "NOT met"
}'

small="$tmp/small.py"
printf 'import os\n\ndef main():\n    print(os.getcwd())\n\nmain()\n' > "$small"
PYTHONPATH="$bench" python3 - "$agent" "$tmp/cfg" "$small" "${SMALL_RUNS:-50}" <<'PY'
import resource, subprocess, sys, time
from pct import pct
agent, cfg, small, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
def run(argv):
    runs = []
    for _ in range(n):
        t = time.monotonic()
        try:
            subprocess.run(argv, stdout=subprocess.DEVNULL, timeout=30)
        except subprocess.TimeoutExpired:
            sys.exit("gave up after 30 s waiting for %s" % " ".join(argv))
        runs.append((time.monotonic() - t) * 1000)
    return pct(runs, 50), min(runs)
before = resource.getrusage(resource.RUSAGE_CHILDREN)
med, best = run([agent, "check", "--native-only", "--config-dir", cfg, small])
after = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) * 1000 / n
vmed, vbest = run([agent, "--version"])
print("one small file, whole process: median %.2f ms, best %.2f ms, CPU %.2f ms per run over %d runs;"
      " target <= 5 ms: %s" % (med, best, cpu, n, "met" if med <= 5 else "NOT met"))
print("  for scale: 'mai-agent --version' (process start and dynamic linking only): median %.2f ms,"
      " best %.2f ms" % (vmed, vbest))
PY
# Instructions do not move with the machine's load: with valgrind, the same
# small file's whole process counted by callgrind (a sanitizer build cannot
# run under valgrind: nothing is printed for one).
if command -v valgrind >/dev/null && ! grep -qa __asan_init "$agent"; then
	# prints the count when the program exited 0 (a sanitizer's refusal does not)
	count() {
		valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" > /dev/null 2> "$tmp/cg" &&
			sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$tmp/cg"
	}
	ins=$(count "$agent" check --native-only --config-dir "$tmp/cfg" "$small") || ins=
	vins=$(count "$agent" --version) || vins=
	if [ -n "$ins" ] && [ -n "$vins" ]; then
		awk -v i="$ins" -v v="$vins" 'BEGIN {
			printf "one small file, instructions (callgrind): %.2f M, of which %.2f M past" \
				" process start (--version: %.2f M)\n", i / 1e6, (i - v) / 1e6, v / 1e6 }'
	fi
fi
