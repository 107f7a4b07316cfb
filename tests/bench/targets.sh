#!/bin/sh
# The speed targets of issue #30, side by side in one run against one build
# (release, shipped configuration; configure with
# meson setup build-release --buildtype=release):
#   drop (rename) of a trivial LOW script -> final result: p50 <= 20 ms,
#     p95 <= 40 ms (agent_latency.sh, with its per-stage p50s);
#   warm sandbox run: p50 <= 10 ms; cold path <= 35% of `docker run`
#     (bench_sandbox.sh);
#   a burst of N drops (1,000): >= 95% of the Engine API's churn limit
#     measured right after it (agent_load.sh).
# Prints each figure with met or MISSED, and the load average before and
# after: the machine's other work moves every figure here, so compare
# runs made side by side.
#   tests/bench/targets.sh BUILD_DIR [LATENCY_RUNS (30)] [BURST (1000)] [CHURN_RUNS (200)]
set -eu
BUILD=${1:?usage: targets.sh BUILD_DIR [LATENCY_RUNS] [BURST] [CHURN_RUNS]}
BUILD=$(cd "$BUILD" && pwd)
N=${2:-30}
BURST=${3:-1000}
CHURN=${4:-200}
bench=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/mai-targets.XXXXXX")
trap 'rm -rf "$T"' EXIT

load() { cut -d' ' -f1-3 /proc/loadavg; }
before=$(load)
# step NAME COMMAND...: runs a benchmark, its output shown and kept in
# $T/NAME; a benchmark that fails fails this script (a pipe into tee would
# hide its status).
step() {
	_name=$1
	shift
	_rc=0
	"$@" > "$T/$_name" 2>&1 || _rc=$?
	cat "$T/$_name"
	[ "$_rc" = 0 ] || { echo "targets.sh: $_name failed (exit $_rc)" >&2; exit 1; }
}
echo "== agent_latency.sh --stages ($N drops of each kind)"
step latency "$bench/agent_latency.sh" --stages "$BUILD" "$N"
echo "== bench_sandbox.sh ($N latency runs, $CHURN throughput runs, 2 workers)"
step sandbox env MAI_BENCH_BUILD="$BUILD" "$bench/bench_sandbox.sh" "$N" "$CHURN" 2
echo "== agent_load.sh ($BURST drops at once, churn of $CHURN)"
step load "$bench/agent_load.sh" "$BUILD" "$BURST" "$CHURN"
after=$(load)

# verdict OK: met or MISSED
verdict() { if [ "$1" = 1 ]; then echo met; else echo MISSED; fi; }
le() { awk -v a="$1" -v b="$2" 'BEGIN { print (a <= b) ? 1 : 0 }'; }
r50=$(sed -n 's/^drop-to-result.*p50 \([0-9.]*\) ms, p95 \([0-9.]*\) ms/\1/p' "$T/latency")
r95=$(sed -n 's/^drop-to-result.*p50 \([0-9.]*\) ms, p95 \([0-9.]*\) ms/\2/p' "$T/latency")
w50=$(awk '$1 == "warm" && $2 == "pool" { print $3 }' "$T/sandbox")
c50=$(awk '$1 == "cold" && $2 == "path" { print $3 }' "$T/sandbox")
b50=$(awk '$1 == "docker" && $2 == "run" { print $5 }' "$T/sandbox")
ratio=$(sed -n 's/^ratio agent\/churn: \([0-9.]*\)%/\1/p' "$T/load")
for v in "r50:$r50" "r95:$r95" "w50:$w50" "c50:$c50" "b50:$b50" "ratio:$ratio"; do
	case $v in *:) echo "targets.sh: no ${v%:} figure in the benchmarks' output" >&2; exit 1 ;; esac
done
cold=$(awk -v c="$c50" -v b="$b50" 'BEGIN { printf "%.1f", 100 * c / b }')
echo
echo "== targets (issue #30), load average before: $before, after: $after"
printf '%-44s %10s  %s\n' "drop -> final result, LOW, p50 <= 20 ms" "$r50 ms" "$(verdict "$(le "$r50" 20)")"
printf '%-44s %10s  %s\n' "drop -> final result, LOW, p95 <= 40 ms" "$r95 ms" "$(verdict "$(le "$r95" 40)")"
printf '%-44s %10s  %s\n' "warm sandbox run, p50 <= 10 ms" "$w50 ms" "$(verdict "$(le "$w50" 10)")"
printf '%-44s %10s  %s\n' "cold path p50 <= 35% of docker run ($b50 ms)" "$cold%" "$(verdict "$(le "$cold" 35)")"
printf '%-44s %10s  %s\n' "burst of $BURST >= 95% of the churn limit" "$ratio%" "$(verdict "$(le 95 "$ratio")")"
