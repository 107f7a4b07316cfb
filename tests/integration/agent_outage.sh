#!/bin/sh
# Retries recorded compactly, with a real agent and real Docker: the agent
# reaches the engine through a socket proxy this test controls
# (docker_proxy.py), which goes down for OUTAGE_SECONDS (default 3) while
# OUTAGE_JOBS scripts (default 20) are dropped, then comes back; the shared
# engine is never stopped. Each job must record job_accepted, its
# assessment and its decision once, a retry record per failed attempt and
# one execution; every sidecar must verify and the log too. The counts are
# printed ("records: ...") for the closing note of issue 19:
#   OUTAGE_JOBS=200 OUTAGE_SECONDS=10 meson test -C build-asan agent_outage -v
# Exit 77 when the real engine is not usable, a failure instead when
# MAI_REQUIRE_REAL=1.
set -u

# The warm pool is on: what a restarted dockerd does to it is tested here.
AGENT_POOL=1
. "$(dirname "$0")/agent_lib.sh"
DOCKER_SOCK=/var/run/docker.sock
N=${OUTAGE_JOBS:-20}
SECONDS_DOWN=${OUTAGE_SECONDS:-3}
PROXY_PID=

on_exit() {
	[ -n "$PROXY_PID" ] && kill -TERM "$PROXY_PID" 2>/dev/null && wait "$PROXY_PID" 2>/dev/null
}

require_docker "$DOCKER_SOCK"
python3 "$(dirname "$0")/docker_proxy.py" "$T/docker.sock" "$DOCKER_SOCK" > "$T/proxy.out" 2>&1 &
PROXY_PID=$!
i=0
until grep -q ready "$T/proxy.out" 2>/dev/null || [ $i -ge 100 ]; do sleep 0.05; i=$((i + 1)); done
require_docker "$T/docker.sock"
write_agent_config "$T/drop" "$T/state" "workers: 2
docker:
  socket: $T/docker.sock
  retry_backoff_max: 2s
  check_interval: 1s"
start_agent

printf 'print("up")\n' > "$T/drop/warm.py"
wait_field "$T/drop/warm.result.json" state completed 60

kill -USR1 "$PROXY_PID" # Docker goes away
j=0
while [ $j -lt "$N" ]; do
	printf 'print(%d)\n' "$j" > "$T/drop/job$j.py"
	j=$((j + 1))
done
sleep "$SECONDS_DOWN"
kill -USR2 "$PROXY_PID" # and comes back
j=0 # (wait_field uses i)
while [ $j -lt "$N" ]; do
	wait_field "$T/drop/job$j.result.json" state completed $((60 + N)) || break
	j=$((j + 1))
done
stop_agent

python3 - "$T/state/audit" "$N" <<'PY' > "$T/counts" 2>&1 || fail "the jobs' records across the outage: $(cat "$T/counts")"
import collections, glob, json, sys
n = int(sys.argv[2])
by_type = collections.Counter()
per_job = collections.defaultdict(collections.Counter)
total = 0
for seg in sorted(glob.glob(sys.argv[1] + "/seg-*.log")):
    for line in open(seg, encoding="ascii"):
        r = json.loads(line[156:])
        total += 1
        by_type[r["type"]] += 1
        f = r["fields"].get("file", "")
        if f.startswith("job"):
            per_job[f][r["type"]] += 1
print("records: %d for %d jobs across the outage (%s)" % (total, n, ", ".join(
    "%s %d" % kv for kv in sorted(by_type.items()))))
bad = [(f, dict(c)) for f, c in per_job.items()
       if c["job_accepted"] != 1 or c["assessment"] != 1 or c["decision"] != 1 or c["execution"] != 1]
assert len(per_job) == n and not bad, bad[:3]
waited = sum(1 for c in per_job.values() if c["retry"] > 0)
assert waited >= n // 2, "only %d jobs met the outage" % waited
PY
cat "$T/counts"
for f in job0 job$((N / 2)) job$((N - 1)); do
	"$AGENT" verify --pubkey "$T/keys/audit.key.pub" "$T/drop/$f.audit" > "$T/verify" 2>&1 ||
		fail "$f.audit does not verify: $(cat "$T/verify")"
	python3 -c 'import json,sys
side = json.load(open(sys.argv[1])); res = json.load(open(sys.argv[2]))
types = [json.loads(r["record"][156:])["type"] for r in side["records"]]
assert types[:3] == ["job_accepted", "assessment", "decision"] and types[-1] == "execution", types
assert set(types[3:-1]) <= {"retry"} and [r["seq"] for r in side["records"]] == res["audit"]["seqs"], types' \
		"$T/drop/$f.audit" "$T/drop/$f.result.json" 2> "$T/err" || fail "$f.audit is not the whole job: $(cat "$T/err")"
done
"$AGENT" verify "$T/state" > "$T/verify" 2>&1 || fail "the audit log does not verify: $(cat "$T/verify")"

lib_finish agent_outage
