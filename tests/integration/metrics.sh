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

. "$(dirname "$0")/agent_lib.sh"
SRC=${MAI_SOURCE_ROOT:?MAI_SOURCE_ROOT must name the source tree}

on_exit() {
	grep -q " $T/mnt " /proc/mounts 2>/dev/null && fusermount3 -u -z "$T/mnt"
}
command -v promtool > /dev/null || skip "promtool is not installed (packaging/install-deps.sh installs prometheus)"
[ -e /dev/fuse ] && command -v fusermount3 > /dev/null || skip "no /dev/fuse or fusermount3"
require_docker /var/run/docker.sock

# The shipped defaults (pool_size: auto) but for the paths, the key, the
# image this tree built and the start-time self-test: no metric comes from
# it, and its probes (one under gVisor) cost this test 2.8 of its 3.6
# CPU-s of containers (test_sandbox and agent_cli's status --self-test
# test it).
write_agent_config "$T/drop" "$T/state"
{
	[ -z "${MAI_SANDBOX_IMAGE:-}" ] || echo "image: $MAI_SANDBOX_IMAGE"
	echo "self_test: false"
} > "$T/conf/sandbox.yaml"
mkdir -p "$T/mnt"
start_agent --mount="$T/mnt"

cp "$SRC/examples/scripts/low_hello.py" "$T/drop/"
cp "$SRC/examples/scripts/high_eval.py" "$T/drop/"
wait_field "$T/drop/low_hello.result.json" state completed 60
wait_field "$T/drop/high_eval.result.json" state awaiting_confirmation 60
# status.json is rewritten every second and the checkpoint timer is 1 s:
# wait until the metrics have caught up with both answers (and the
# checkpoint with the records), up to 30 s, then check them all.
i=0
until "$AGENT" status --format prometheus > "$T/status.prom" 2>/dev/null &&
	[ "$(awk '$1 == "mai_agent_drop_to_result_seconds_count" { print $2 }' "$T/status.prom")" = 2 ] &&
	[ -n "$(awk '$1 == "mai_agent_audit_checkpoint_age_seconds" { print $2 }' "$T/status.prom")" ] ||
	[ $i -ge 300 ]; do
	sleep 0.1
	i=$((i + 1))
done

# value FILE SERIES: the value of one series (name with its labels, exact).
value() { awk -v s="$2" '$1 == s { print $2 }' "$1"; }
# check FILE WHAT: promtool's lint and the values the drops must have left.
check() {
	promtool check metrics < "$1" > "$T/promtool.out" 2>&1 ||
		fail "$2: promtool check metrics: $(cat "$T/promtool.out")"
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
"$AGENT" status --format prometheus > "$T/status.prom" || fail "status --format prometheus exited $?"
check "$T/status.prom" "status --format prometheus"
cat "$T/mnt/metrics" > "$T/view.prom" || fail "cat metrics on the view"
check "$T/view.prom" "the view's metrics"

# The agent stopped: up 0, exit 0, still valid, the log still counted.
stop_agent
"$AGENT" status --format prometheus > "$T/stopped.prom" || fail "status --format prometheus after the stop exited $?"
promtool check metrics < "$T/stopped.prom" > "$T/promtool.out" 2>&1 ||
	fail "stopped: promtool check metrics: $(cat "$T/promtool.out")"
[ "$(value "$T/stopped.prom" mai_agent_up)" = 0 ] || fail "stopped: mai_agent_up is not 0"
grep -q '^mai_agent_results_total' "$T/stopped.prom" && fail "stopped: the last run's counters shown as live"
[ -n "$(value "$T/stopped.prom" mai_agent_audit_records_total)" ] || fail "stopped: audit records missing"

[ $fails -eq 0 ] || cat "$T/status.prom" >&2
lib_finish metrics
