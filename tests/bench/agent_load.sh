#!/bin/sh
# Throughput and memory of the agent under a burst of drops (issue #6 point
# 9): N trivial LOW scripts (default 1,000) renamed into the drop directory
# at once, timed until each has its final result, against the bare churn
# limit of the engine measured in the same run (bench_sandbox churn: an
# Engine API create/start/wait/remove loop with as many workers as the
# agent). The agent's RSS idle, and its peak (VmHWM) over the burst.
# Targets: RSS idle < 16 MB, under the load < 48 MB. Needs Docker and the
# sandbox image.
#
#   [MAI_BENCH_POOL=N] [MAI_BENCH_BANDIT=0] tests/bench/agent_load.sh BUILD_DIR [N (1000)] [CHURN_RUNS (200)]
#
# MAI_BENCH_BANDIT=0 turns off the Bandit pass of the assessment (the resident
# Bandit worker, one for all jobs, when Bandit is installed, as shipped).
#
# BUILD_DIR is configured with -Dbench=true (for bench_sandbox), e.g.
# meson setup build-rel --buildtype=release -Dbench=true. The agent runs
# with the shipped defaults (2 workers, pool_size: auto) but a warm pool of
# MAI_BENCH_POOL when it is set.
set -eu
BUILD=${1:?usage: agent_load.sh BUILD_DIR [N] [CHURN_RUNS]}
N=${2:-1000}
CHURN=${3:-200}
AGENT="$BUILD/agent/mai-agent"
BENCH="$BUILD/tests/bench/bench_sandbox"
[ -x "$AGENT" ] || { echo "no mai-agent at $AGENT: build first (ninja -C $BUILD)" >&2; exit 2; }
[ -x "$BENCH" ] || { echo "no bench_sandbox at $BENCH: configure $BUILD with -Dbench=true" >&2; exit 2; }
T=$(mktemp -d "${TMPDIR:-/tmp}/mai-load.XXXXXX")
PID=
SAMPLER=
. "$(dirname "$0")/bench_lib.sh"
trap 'bench_stop "$SAMPLER" "$PID"; rm -rf "$T"' EXIT

mkdir -p "$T/stage"
. "$BENCH_DIR/agent_bench_config.sh"
bench_agent_config
# The burst is one writer's: no cap on a writer's queued jobs (the shipped
# max_jobs_per_writer, 500, would refuse half of a 1,000-drop burst).
echo "max_jobs_per_writer: 0" >> "$T/conf/agent.yaml"
"$AGENT" run --log-file "$T/agent.log" &
PID=$!
bench_agent_up "$PID" "$T/state" "$T/agent.log"
POOL=$(bench_pool_size) || exit 1
# Idle: the warm pool full (3 trust levels x pool_size, all running).
PYTHONPATH="$BENCH_DIR" python3 "$BENCH_DIR/agent_bench.py" wait-idle "$T/state" $((3 * POOL))
kb() { awk -v k="$1:" '$1 == k { print $2 }' "/proc/$PID/status"; }
idle=$(kb VmRSS)
workers=$(awk '/"workers":/ { gsub(/[^0-9]/, ""); print }' "$T/state/status.json")

i=0
while [ $i -lt "$N" ]; do
	printf 'print(%d)\n' $i > "$T/stage/load$i.py"
	i=$((i + 1))
done
# RSS sampled through the burst, beside the kernel's own peak (VmHWM).
( while :; do kb VmRSS >> "$T/rss"; sleep 0.2; done ) &
SAMPLER=$!
start=$(date +%s%N)
mv "$T"/stage/*.py "$T/drop/"
# Answered: a final state. An error is not an answer (the agent retries it).
finals() {
	cat "$T"/drop/*.result.json 2>/dev/null |
		grep -cE '^  "state": "(completed|rejected|awaiting_confirmation|blocked)"' || true
}
all_final() {
	if ! kill -0 "$PID" 2>/dev/null; then
		echo "the agent died under the load; see its log:" >&2
		tail -20 "$T/agent.log" >&2
		exit 1
	fi
	[ "$(finals)" -ge "$N" ]
}
deadline=${MAI_BENCH_LOAD_S:-$((120 + N / 2))}
# Polled every 0.2 s (reading 1,000 files takes CPU from the agent); the
# burst ends at the newest final result's write, not at the poll.
if ! BENCH_POLL_S=0.2 bench_wait "$deadline" "$N final results" all_final; then
	echo "final: $(finals) of $N; by state: $(cat "$T"/drop/*.result.json 2>/dev/null |
		sed -n 's/^  "state": "\(.*\)",*$/\1/p' | sort | uniq -c | tr -s ' \n' ' ')" >&2
	exit 1
fi
end=$(python3 -c 'import glob, os, sys; print(max(os.stat(p).st_mtime_ns for p in glob.glob(sys.argv[1] + "/*.result.json")))' "$T/drop")
bench_stop "$SAMPLER"; SAMPLER=
peak=$(kb VmHWM)
sampled=$(sort -n "$T/rss" | tail -n1)
completed=$(cat "$T"/drop/*.result.json | grep -c '^  "state": "completed"' || true)
ok=$(cat "$T"/drop/*.result.json | grep -c '^  "exit_code": 0,\?$' || true)
bench_stop "$PID"; PID=

churn=$("$BENCH" churn "$CHURN" "$workers")
crate=$(echo "$churn" | awk '{ print $2 }')
secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", (b - a) / 1e9 }')
rate=$(awk -v n="$N" -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", n / ((b - a) / 1e9) }')
echo "assessment: $ANALYSIS"
echo "$N drops at once: all answered in $secs s ($completed completed, $ok exit 0): $rate runs/s with $workers workers"
echo "bare API churn ($CHURN create/start/wait/remove, $workers workers, same run): $crate runs/s"
echo "ratio agent/churn: $(awk -v a="$rate" -v b="$crate" 'BEGIN { printf "%.1f%%", 100 * a / b }')"
echo "agent RSS: idle $(awk -v k="$idle" 'BEGIN { printf "%.1f", k / 1024 }') MB (target < 16 MB); under the load: peak VmHWM $(awk -v k="$peak" 'BEGIN { printf "%.1f", k / 1024 }') MB, highest 0.2 s sample $(awk -v k="$sampled" 'BEGIN { printf "%.1f", k / 1024 }') MB (target < 48 MB)"
[ "$completed" -eq "$N" ] || { echo "not every drop completed; see the agent log" >&2; exit 1; }
