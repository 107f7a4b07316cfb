#!/bin/sh
# Fair turns (issue 27): how long one writer waits for the answer to one
# script while another writer floods the drop directory.
#
#   tests/bench/fairness.sh BUILD_DIR [SPINNERS [FLOOD [TIMEOUT]]]
#
# Two writers, as two uids (no accounts needed: in watch mode the writer is
# the file's owner; the files are made in a staging directory, given their
# owner, and renamed into the drop directory). Two scenarios, each against
# a fresh agent with the shipped defaults (workers: 2, the shipped
# max_jobs_per_writer when the build knows it) but the timeouts of LOW and
# MEDIUM scripts set to TIMEOUT (default 3s):
#  - spinners: writer C drops SPINNERS (default 200) scripts that spin
#    ('while True: pass') until the timeout kills them; once the agent has
#    queued them, writer W drops one script that prints a line;
#  - flood: writer C drops FLOOD (default 20,000) empty scripts in one burst
#    of renames; once the first of them is answered, W drops one script.
# Printed for each: W's wait from its rename to its final result; the part
# of it after a worker was free for W (the issue's measure: from the first
# end of one of C's runs after W's rename, or the rename when a worker was
# idle);
# how many of C's scripts were still unanswered then (queued, not yet
# taken, or refused over the cap), how many were refused over the cap, how
# many of C's names were taken in (given a first answer) after W's, and the
# load average.
# A build without fair turns (one queue for all) serves W after C's whole
# backlog; one that takes names in in their order of arrival takes W's
# after every name of C's renamed before it. MAI_BENCH_SMOKE=1 (the suite's
# fairness_smoke) runs 20 spinners with a 2 s timeout and a 1,000-file
# flood and fails unless W is answered while at least half of C's scripts
# still wait and, in the flood, W's name is taken in before a quarter of
# C's are.
set -eu
BUILD=${1:?usage: fairness.sh BUILD_DIR [SPINNERS [FLOOD [TIMEOUT]]]}
SMOKE=${MAI_BENCH_SMOKE:-0}
if [ "$SMOKE" = 1 ]; then
	SPINNERS=20 FLOOD=1000 TIMEOUT=2
else
	SPINNERS=${2:-200} FLOOD=${3:-20000} TIMEOUT=${4:-3}
fi
AGENT="$BUILD/agent/mai-agent"
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (files of two owners)"; exit 77; }
curl -sf --unix-socket /var/run/docker.sock http://localhost/_ping > /dev/null 2>&1 ||
	{ echo "SKIP: the Docker engine does not answer"; [ "${MAI_REQUIRE_REAL:-0}" = 1 ] && exit 1; exit 77; }
T=$(mktemp -d "${TMPDIR:-/tmp}/mai-fairness.XXXXXX")
PID=
trap '[ -n "$PID" ] && kill -TERM "$PID" 2>/dev/null; wait 2>/dev/null; rm -rf "$T"' EXIT
CU=61001 WU=61002

start() {
	rm -rf "$T/drop" "$T/state" "$T/stage"
	mkdir -p "$T/conf" "$T/drop" "$T/stage" "$T/keys"
	[ -f "$T/keys/audit.key" ] || "$AGENT" keygen "$T/keys/audit.key" > /dev/null 2>&1
	printf 'drop_dir: %s\nstate_dir: %s\nlog_level: warn\n' "$T/drop" "$T/state" > "$T/conf/agent.yaml"
	printf 'signing_key: %s\n' "$T/keys/audit.key" > "$T/conf/audit.yaml"
	printf 'analyzers:\n  bandit:\n    enabled: false\n' > "$T/conf/security.yaml"
	printf 'trusted:\n  timeout: %ss\nstandard:\n  timeout: %ss\n' "$TIMEOUT" "$TIMEOUT" > "$T/conf/sandbox.yaml"
	# The smoke checks an order, not a latency: its two agents start
	# without the self-test and the warm pool (seconds of Docker each, as
	# the suite's other agents do; tests/integration/agent_start.sh).
	if [ "$SMOKE" = 1 ]; then
		printf 'self_test: false\npool_size: 0\n' >> "$T/conf/sandbox.yaml"
	fi
	MAI_CONFIG_DIR="$T/conf" "$AGENT" run --log-file "$T/agent.log" &
	PID=$!
	until grep -q "\"pid\": $PID," "$T/state/status.json" 2>/dev/null; do
		kill -0 "$PID" 2>/dev/null || { echo "FAIL: the agent did not start"; cat "$T/agent.log"; exit 1; }
		sleep 0.1
	done
}
stop() {
	kill -TERM "$PID"
	wait "$PID" || true
	PID=
}

# scenario NAME N BODY: C's N scripts (BODY), then W's one; prints W's wait.
scenario() {
	start
	python3 - "$T" "$1" "$2" "$3" "$CU" "$WU" "$TIMEOUT" "$SMOKE" <<'PY'
import calendar, json, os, sys, time
t, name, n, body, cu, wu, timeout, smoke = sys.argv[1:9]
n, cu, wu, timeout = int(n), int(cu), int(wu), float(timeout)
drop, stage = t + "/drop", t + "/stage"
for i in range(n):
    p = "%s/c%05d.py" % (stage, i)
    with open(p, "w") as f:
        f.write(body.replace("\\n", "\n") + "# %d\n" % i)
    os.chown(p, cu, cu)
t0 = time.monotonic()
for i in range(n):
    os.rename("%s/c%05d.py" % (stage, i), "%s/c%05d.py" % (drop, i))
burst = time.monotonic() - t0

def state(p):
    try:
        with open(p) as f:
            return json.load(f).get("state", "")
    except (OSError, ValueError):
        return ""

# W drops once the agent is busy with C's work: the last of C's has an
# answer (queued or refused) for the spinners, the first is answered for
# the flood.
probe = "%s/c%05d.result.json" % (drop, n - 1 if name == "spinners" else 0)
end = time.monotonic() + 3600
while state(probe) == "" and time.monotonic() < end:
    time.sleep(0.01)
w = stage + "/w.py"
with open(w, "w") as f:
    f.write('print("w")\n')
os.chown(w, wu, wu)
start = time.monotonic()
dropped_at = time.time()
os.rename(w, drop + "/w.py")
# C's names not yet taken in (no answer) just after W's rename: what W's
# name may pass. The watcher reports a burst in its order of rename, so
# with c00000 answered most of a 1,000-name burst still waits.
waiting = sum(1 for i in range(n) if not os.path.exists("%s/c%05d.result.json" % (drop, i)))
res = drop + "/w.result.json"
final = ("completed", "rejected", "blocked", "awaiting_confirmation")
while state(res) not in final and time.monotonic() < end:
    time.sleep(0.005)
wait = time.monotonic() - start

def times(p):
    try:
        with open(p) as f:
            t = json.load(f).get("times", {})
    except (OSError, ValueError):
        return {}
    return {k: calendar.timegm(time.strptime(v[:19], "%Y-%m-%dT%H:%M:%S")) + int(v[20:23]) / 1000
            for k, v in t.items()}

# What the issue measures: W's answer after a worker was free for it: the
# first end of one of C's runs after W's drop (a worker busy with a spinner
# until its timeout is not free), or W's drop itself when W started before
# any (a worker was idle). A worker that then took another of C's jobs
# instead of W's counts against the agent.
wt = times(res)
ends = [t["finished"] for t in (times("%s/c%05d.result.json" % (drop, i)) for i in range(n))
        if t.get("finished", 0) > dropped_at]
free_at = min(ends) if ends else dropped_at
if "started" in wt and wt["started"] <= free_at:
    free_at = dropped_at
after_free = wt["finished"] - free_at if "finished" in wt else float("nan")
parts = ""
if {"accepted", "started", "finished"} <= wt.keys():
    parts = " [taken in %.2f s, started %.2f s, ran %.2f s]" % (
        wt["accepted"] - dropped_at, wt["started"] - max(free_at, wt["accepted"]),
        wt["finished"] - wt["started"])
# Intake's turns: how many of C's names were taken in (queued or answered)
# after W's was, or not yet at all. Taken in the order of arrival, none:
# W's name waits behind every name of C's renamed before it.
after_w = sum(1 for i in range(n)
              if times("%s/c%05d.result.json" % (drop, i)).get("accepted", float("inf"))
              > wt.get("accepted", float("inf")))
# Unanswered: no final result yet, or refused over the cap (not served).
left = capped = 0
for i in range(n):
    try:
        text = open("%s/c%05d.result.json" % (drop, i)).read()
    except OSError:
        text = ""
    over = '"writer_queue_full"' in text
    capped += over
    left += over or state("%s/c%05d.result.json" % (drop, i)) not in final
print("%-9s C dropped %6d (renames took %.1f s); W waited %7.2f s for %s (%.2f s after a "
      "worker was free%s); C's scripts unanswered then: %d, refused over the cap: %d, taken in "
      "after W's: %d (%d not yet taken in at its rename); load %s"
      % (name, n, burst, wait, state(res), after_free, parts, left, capped, after_w, waiting,
         " ".join(open("/proc/loadavg").read().split()[:3])))
# Wall time depends on the machine's load; the order does not: W must be
# answered while most of C's backlog still waits (one queue for all would
# answer W after all of it).
if smoke == "1" and left < n // 2:
    print("FAIL: W was answered after %d of C's %d scripts (%d still unanswered)"
          % (n - left, n, left))
    sys.exit(1)
# W dropped once C's first name was taken in, with most of the burst still
# to take: W's must be taken in before most of them.
if smoke == "1" and name == "flood" and after_w < n // 4:
    print("FAIL: W's name was taken in after %d of C's %d names (%d after it; %d of them "
          "were not yet taken in when W's was renamed)" % (n - after_w, n, after_w, waiting))
    sys.exit(1)
PY
	rc=$?
	stop
	return $rc
}

echo "fairness: $("$AGENT" --version 2>&1 | head -1), $(nproc) CPUs, workers 2, timeout ${TIMEOUT}s"
scenario spinners "$SPINNERS" 'while True:\n    pass\n'
scenario flood "$FLOOD" ''
