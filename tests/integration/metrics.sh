#!/bin/sh
# The metrics in the Prometheus text format, as a monitoring system reads
# them: a real agent (shipped defaults: the warm pool on) runs a LOW script
# and holds a HIGH one; then 'mai-agent status --format prometheus' (for
# node_exporter's textfile collector) and the view's /metrics (a real FUSE
# mount) must pass 'promtool check metrics' (Debian's prometheus package) and
# say what happened: jobs by state, level and verdict, both latency
# histograms, Docker up, the warm pool's size, the audit log's records and
# checkpoint. Once the agent has stopped, mai_agent_up is 0 and the audit
# log's series are still there.
# Exit 77 without promtool, Docker or FUSE, unless MAI_REQUIRE_REAL=1.
set -u
AGENT=${MAI_AGENT:?MAI_AGENT must name the mai-agent binary}
SRC=${MAI_SOURCE_ROOT:?MAI_SOURCE_ROOT must name the source tree}
W=$(mktemp -d "${TMPDIR:-/tmp}/mai-metrics.XXXXXX")
fails=0
skip() {
	if [ "${MAI_REQUIRE_REAL:-0}" = 1 ]; then echo "FAIL: $*" >&2; exit 1; fi
	echo "SKIP: $*" >&2
	exit 77
}
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
. "$SRC/tests/integration/agent_start.sh"
cleanup() {
	agent_stop
	grep -q " $W/mnt " /proc/mounts 2>/dev/null && fusermount3 -u -z "$W/mnt"
	rm -rf "$W"
}
trap cleanup EXIT
command -v promtool > /dev/null || skip "promtool is not installed (packaging/install-deps.sh installs prometheus)"
[ -e /dev/fuse ] && command -v fusermount3 > /dev/null || skip "no /dev/fuse or fusermount3"

agent_setup "$W" || exit 1
mkdir -p "$W/mnt"
agent_start_or_skip "$W" --mount="$W/mnt"

# wait_state NAME STATE: until drop/NAME.result.json says so (60 s at most).
wait_state() {
	i=0
	until grep -q "\"state\": \"$2\"" "$W/drop/$1.result.json" 2>/dev/null; do
		i=$((i + 1))
		[ $i -le 600 ] || { fail "$1 never reached state $2"; return 1; }
		sleep 0.1
	done
}
cp "$SRC/examples/scripts/low_hello.py" "$W/drop/"
cp "$SRC/examples/scripts/high_eval.py" "$W/drop/"
wait_state low_hello completed
wait_state high_eval awaiting_confirmation
sleep 1.5 # status.json is rewritten every second; the checkpoint timer is 1 s

# value FILE SERIES: the value of one series (name with its labels, exact).
value() { awk -v s="$2" '$1 == s { print $2 }' "$1"; }
# check FILE WHAT: promtool's lint and the values the drops must have left.
check() {
	promtool check metrics < "$1" > "$W/promtool.out" 2>&1 ||
		fail "$2: promtool check metrics: $(cat "$W/promtool.out")"
	[ "$(value "$1" mai_agent_up)" = 1 ] || fail "$2: mai_agent_up is not 1"
	[ "$(value "$1" 'mai_agent_results_total{state="completed"}')" = 1 ] || fail "$2: one completed result"
	[ "$(value "$1" 'mai_agent_results_total{state="awaiting_confirmation"}')" = 1 ] ||
		fail "$2: one held result"
	[ "$(value "$1" 'mai_agent_assessments_total{level="HIGH"}')" = 1 ] || fail "$2: one HIGH assessment"
	[ "$(value "$1" 'mai_agent_runs_total{verdict="exited"}')" = 1 ] || fail "$2: one run that exited"
	[ "$(value "$1" mai_agent_run_duration_seconds_count)" = 1 ] || fail "$2: one run timed"
	[ "$(value "$1" mai_agent_drop_to_result_seconds_count)" = 2 ] || fail "$2: two drops timed"
	[ "$(value "$1" 'mai_agent_drop_to_result_seconds_bucket{le="+Inf"}')" = 2 ] ||
		fail "$2: +Inf bucket is the count"
	[ "$(value "$1" mai_agent_docker_up)" = 1 ] || fail "$2: Docker up"
	[ "$(value "$1" 'mai_agent_queue_jobs{state="queued"}')" = 0 ] || fail "$2: queue empty"
	pool=$(value "$1" mai_agent_warm_pool_size)
	[ -n "$pool" ] && [ "$pool" -ge 1 ] || fail "$2: the warm pool is on by default (size '$pool')"
	recs=$(value "$1" mai_agent_audit_records_total)
	[ -n "$recs" ] && [ "$recs" -ge 8 ] || fail "$2: audit records '$recs'"
	age=$(value "$1" mai_agent_audit_checkpoint_age_seconds)
	[ -n "$age" ] && [ "$age" -le 30 ] || fail "$2: checkpoint age '$age'"
	[ "$(value "$1" mai_agent_audit_bytes)" -gt 1000 ] || fail "$2: audit bytes"
}
"$AGENT" status --format prometheus > "$W/status.prom" || fail "status --format prometheus exited $?"
check "$W/status.prom" "status --format prometheus"
cat "$W/mnt/metrics" > "$W/view.prom" || fail "cat metrics on the view"
check "$W/view.prom" "the view's metrics"

# The agent stopped: up 0, exit 0, still valid, the log still counted.
agent_stop
"$AGENT" status --format prometheus > "$W/stopped.prom" || fail "status --format prometheus after the stop exited $?"
promtool check metrics < "$W/stopped.prom" > "$W/promtool.out" 2>&1 ||
	fail "stopped: promtool check metrics: $(cat "$W/promtool.out")"
[ "$(value "$W/stopped.prom" mai_agent_up)" = 0 ] || fail "stopped: mai_agent_up is not 0"
grep -q '^mai_agent_results_total' "$W/stopped.prom" && fail "stopped: the last run's counters shown as live"
[ -n "$(value "$W/stopped.prom" mai_agent_audit_records_total)" ] || fail "stopped: audit records missing"

[ $fails -eq 0 ] || { cat "$W/status.prom" >&2; exit 1; }
echo "ok: status --format prometheus and the view's metrics pass promtool check metrics"
