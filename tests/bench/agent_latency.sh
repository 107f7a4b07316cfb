#!/bin/sh
# Drop-to-final-result latency of the agent for a trivial script, and the
# agent's RSS idle and after the load. Needs Docker and the sandbox image.
#
#   [MAI_BENCH_POOL=2] tests/bench/agent_latency.sh BUILD_DIR [N]   (warm pool size)
#
# A drop is a rename into the drop directory (mv, mai-agent submit, an
# editor's write-temp-then-rename), taken at once; the same LOW script
# written in place (cp) is also timed, as it waits the settle delay. The
# baseline, run side by side, is the same drop with a HIGH script (the
# agent answers awaiting_confirmation without starting a container), so the
# ratio shows what the sandbox run costs on top of watch + intake + assess +
# sidecars. The agent runs with the shipped defaults. Targets (issue #6):
# p50 <= 100 ms, p95 <= 250 ms with the warm pool; RSS idle < 16 MB (for
# RSS under a 1,000-drop load and throughput, see agent_load.sh).
set -eu
BUILD=${1:?usage: agent_latency.sh BUILD_DIR [N]}
N=${2:-30}
AGENT="$BUILD/agent/mai-agent"
T=$(mktemp -d "${TMPDIR:-/tmp}/mai-bench.XXXXXX")
PID=
trap '[ -n "$PID" ] && kill -TERM "$PID" 2>/dev/null; wait 2>/dev/null; rm -rf "$T"' EXIT

mkdir -p "$T/conf" "$T/drop" "$T/keys"
"$AGENT" keygen "$T/keys/audit.key" > /dev/null 2>&1
cat > "$T/conf/agent.yaml" <<EOF
drop_dir: $T/drop
state_dir: $T/state
log_level: warn
EOF
printf 'signing_key: %s\n' "$T/keys/audit.key" > "$T/conf/audit.yaml"
printf 'pool_size: %s\n' "${MAI_BENCH_POOL:-2}" > "$T/conf/sandbox.yaml"
export MAI_CONFIG_DIR="$T/conf"
"$AGENT" run --log-file "$T/agent.log" &
PID=$!
until grep -q "\"pid\": $PID," "$T/state/status.json" 2>/dev/null; do sleep 0.1; done
sleep 1
rss() { awk '/^VmRSS/ { print $2 }' "/proc/$PID/status"; }
idle=$(rss)

# one_run KIND I: prints the milliseconds from the rename (KIND run, base)
# or the copy (KIND cp) into the drop directory to the final result.
one_run() {
	if [ "$1" = base ]; then body="import os
os.system('x$2')"; else body="print($2)"; fi
	printf '%s\n' "$body" > "$T/$1$2.py"
	start=$(date +%s%N)
	if [ "$1" = cp ]; then cp "$T/$1$2.py" "$T/drop/$1$2.py"; else mv "$T/$1$2.py" "$T/drop/$1$2.py"; fi
	until grep -qE '"state": "(completed|awaiting_confirmation|rejected|blocked)"' \
		"$T/drop/$1$2.result.json" 2>/dev/null; do sleep 0.002; done
	echo $(( ($(date +%s%N) - start) / 1000000 ))
}

pct() { sort -n | awk -v p="$1" '{ a[NR] = $1 } END { i = int(NR * p / 100 + 0.999); if (i < 1) i = 1; print a[i] }'; }

: > "$T/run.ms"; : > "$T/base.ms"; : > "$T/cp.ms"
i=0
while [ $i -lt "$N" ]; do
	one_run run $i >> "$T/run.ms"
	one_run base $i >> "$T/base.ms"
	one_run cp $i >> "$T/cp.ms"
	i=$((i + 1))
done
loaded=$(rss)
hwm=$(awk '/^VmHWM/ { print $2 }' "/proc/$PID/status")
r50=$(pct 50 < "$T/run.ms"); r95=$(pct 95 < "$T/run.ms")
b50=$(pct 50 < "$T/base.ms"); b95=$(pct 95 < "$T/base.ms")
c50=$(pct 50 < "$T/cp.ms"); c95=$(pct 95 < "$T/cp.ms")
settle=$(awk '/^ *settle_delay:/ { print $2 }' "$(dirname "$0")/../../config/agent.yaml")
echo "drop-to-result, trivial LOW script run in the sandbox (n=$N): p50 ${r50} ms, p95 ${r95} ms"
echo "baseline, HIGH script held without a run (n=$N):           p50 ${b50} ms, p95 ${b95} ms"
echo "the LOW script written in place (cp; settle_delay $settle) (n=$N): p50 ${c50} ms, p95 ${c95} ms"
echo "ratio run/baseline: p50 $(awk -v a="$r50" -v b="$b50" 'BEGIN { printf "%.1f", a / (b ? b : 1) }'), p95 $(awk -v a="$r95" -v b="$b95" 'BEGIN { printf "%.1f", a / (b ? b : 1) }')"
echo "agent RSS: idle $((idle / 1024)) MB, after the runs $((loaded / 1024)) MB, peak (VmHWM) $((hwm / 1024)) MB"
