#!/bin/sh
# Bounds and recording with a real agent, real Docker, a real audit log and
# the real audit view (docs/ARCHITECTURE.md "Failure behaviour"):
#  - security.max_findings (3 here): result.json lists three findings and
#    says how many it dropped;
#  - a run whose output is too large for one audit record (6 MiB of é,
#    stdout_max 8m): the result keeps it all, the execution record is cut
#    to the record limit and says so, and the log and the sidecar verify;
#  - --log-file lines start with their RFC 3339 time;
#  - kill -9 during a run: the next start records the run as interrupted,
#    before the script's new job, and the script runs again;
#  - a record changed behind the running agent: at its next checkpoint it
#    stops taking jobs and says so in its log, status.json and the view; a
#    restart names the change and the recovery, which works.
# Exit 77 when the real engine or FUSE is not usable, a failure instead when
# MAI_REQUIRE_REAL=1.
set -u

. "$(dirname "$0")/agent_lib.sh"

on_exit() {
	unmount_view "$T/mnt"
}

require_docker /var/run/docker.sock
[ -e /dev/fuse ] && command -v fusermount3 > /dev/null || skip "FUSE (/dev/fuse, fusermount3) is missing"
write_agent_config "$T/drop" "$T/state" "workers: 2"
printf '%smax_findings: 3\n' "$AGENT_SECURITY_YAML" > "$T/conf/security.yaml"
printf 'stdout_max: 8m\n' >> "$T/conf/sandbox.yaml"
# Checkpoints only when a job ends (its sidecar) or the agent stops: the
# records of a running job stay unread back until then.
printf 'signing_key: %s\ncheckpoint_interval: 1h\n' "$T/keys/audit.key" > "$T/conf/audit.yaml"
mkdir -p "$T/mnt"

# records FILE: type, verdict and reason of every record about FILE, with its
# seq, one a line, read from the segments (the JSON starts at byte 156).
records() {
	python3 - "$T/state/audit" "$1" <<'PY'
import glob, json, sys
for seg in sorted(glob.glob(sys.argv[1] + "/seg-*.log")):
    for line in open(seg, encoding="ascii"):
        r = json.loads(line[156:])
        f = r["fields"]
        if f.get("file") == sys.argv[2]:
            print(r["seq"], r["type"], f.get("verdict", "-"), f.get("reason", "-"))
PY
}

start_agent --mount="$T/mnt"

# --- --log-file lines carry their time ---
head -n 1 "$T/agent.log" | grep -Eq '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z mai-agent: ' ||
	fail "the log file's lines do not start with an RFC 3339 time: $(head -n 1 "$T/agent.log")"

# --- findings capped as configured ---
python3 -c 'print("".join("open(\"f%d.txt\", \"a\")\n" % i for i in range(40)))' > "$T/drop/many.py"
wait_field "$T/drop/many.result.json" state completed 60
python3 - "$T/drop/many.result.json" <<'PY' || fail "many.py's findings: $(head -c 2000 "$T/drop/many.result.json")"
import json, sys
a = json.load(open(sys.argv[1]))["assessment"]
assert len(a["findings"]) == 3, len(a["findings"])
assert a["max_findings"] == 3 and a["findings_total"] >= 40, a
assert a["findings_dropped"] == a["findings_total"] - 3, a
PY

# --- a record too large for the log is cut and says so ---
printf 'import sys\nsys.stdout.write("\\u00e9" * (3 << 20))\n' > "$T/drop/loud.py"
wait_field "$T/drop/loud.result.json" state completed 90
[ "$(field "$T/drop/loud.result.json" execution.stdout.bytes_kept)" = $((6 << 20)) ] ||
	fail "loud.py: the result does not keep its 6 MiB of output"
python3 - "$T/state/audit" <<'PY' || fail "loud.py's execution record is not cut to the limit"
import glob, json, sys
for seg in sorted(glob.glob(sys.argv[1] + "/seg-*.log")):
    for line in open(seg, encoding="ascii"):
        r = json.loads(line[156:])
        if r["type"] == "execution" and r["fields"].get("file") == "loud.py":
            assert len(line) <= 4 << 20, len(line)
            cut = r["fields"]["cut"]["execution.stdout.text"]
            assert cut["bytes"] == 6 << 20 and 0 < cut["kept"] < cut["bytes"], cut
            assert r["fields"]["record_max"] == 4 << 20
            sys.exit(0)
sys.exit(1)
PY
"$AGENT" verify --pubkey "$T/keys/audit.key.pub" "$T/drop/loud.audit" > "$T/verify" 2>&1 ||
	fail "loud.audit does not verify: $(cat "$T/verify")"
seq=$(records loud.py | awk '$2 == "execution" { print $1 }')
[ -n "$seq" ] && head -c 1 "$T/mnt/entries/$(printf '%012d' "$seq").json" > /dev/null 2>&1 ||
	fail "the view cannot show loud.py's execution record (seq ${seq:-none})"

# --- kill -9 during a run: recorded as interrupted at the next start ---
printf 'import time\ntime.sleep(4)\nprint("woke")\n' > "$T/drop/nap.py"
wait_field "$T/drop/nap.result.json" state running 60
sleep 0.5
kill -KILL "$PID"
wait "$PID" 2> /dev/null
PID=
unmount_view "$T/mnt" # the killed agent's view
[ -n "$(inflight_notes "$T/state")" ] || fail "no note of the run the killed agent left"
start_agent --mount="$T/mnt"
wait_field "$T/drop/nap.result.json" state completed 90
records nap.py > "$T/nap.records"
python3 - "$T/nap.records" <<'PY' || fail "nap.py's records after kill -9: $(cat "$T/nap.records")"
import sys
recs = [l.split() for l in open(sys.argv[1])]
runs = [r for r in recs if r[1] == "execution"]
accepted = [int(r[0]) for r in recs if r[1] == "job_accepted"]
assert len(accepted) == 2 and len(runs) == 2, recs
assert runs[0][2:] == ["interrupted", "agent_killed"] and int(runs[0][0]) < accepted[1], recs
assert runs[1][2] == "exited", recs
PY
[ "$(field "$T/drop/nap.result.json" execution.stdout.text)" = woke ] || fail "nap.py did not run again to its end"

# --- a record changed behind the running agent ---
printf 'import time\ntime.sleep(3)\n' > "$T/drop/victim.py"
wait_field "$T/drop/victim.result.json" state running 60
python3 - "$T/state/audit" <<'PY' || fail "cannot change victim.py's decision record"
import glob, sys
seg = sorted(glob.glob(sys.argv[1] + "/seg-*.log"))[-1]
data = open(seg, "rb").read()
at = data.rfind(b'"action":"run"')
assert at > 0 and b"victim.py" in data[data.rfind(b"\n", 0, at):at + 200]
with open(seg, "r+b") as f:
    f.seek(at + 10)
    f.write(b"R")
PY
wait_field "$T/drop/victim.result.json" state completed 60
wait_json "$T/state/status.json" 10 'f("audit.state") == "tampered"'
python3 - "$T/mnt/status.json" <<'PY' || fail "the view's status.json does not say the log was changed: $(cat "$T/mnt/status.json")"
import json, sys
a = json.load(open(sys.argv[1]))["audit"]
assert a["state"] == "tampered" and "was changed after the agent wrote it" in a["message"], a
assert "quarantine" in a["message"], a
PY
grep -q "error: the audit log $T/state/audit was changed after the agent wrote it" "$T/agent.log" ||
	fail "the agent's log does not say the audit log was changed"
"$AGENT" status > "$T/status" 2>&1
grep -q "^audit log: tampered: the audit log $T/state/audit was changed" "$T/status" ||
	fail "mai-agent status does not say the log was changed: $(cat "$T/status")"
head -c 5 "$T/mnt/verify" | grep -q '^FAIL' || fail "the view's verify does not fail: $(cat "$T/mnt/verify")"
printf 'print("after")\n' > "$T/drop/after.py"
wait_field "$T/drop/after.result.json" reason audit_tampered 20
[ -z "$(records after.py)" ] || fail "a job started on a changed log: $(records after.py)"
stop_agent
# A restart says what changed and how to recover, not something about keys.
# It is refused before the sandbox starts.
ready_before=$(grep -c "sandbox ready" "$T/agent.log")
agent_start "$T"
rc=$?
[ $rc -ne 0 ] || { fail "the agent started on a changed log"; kill -TERM "$AGENT_PID"; wait "$AGENT_PID"; }
[ "$(grep -c "sandbox ready" "$T/agent.log")" = "$ready_before" ] ||
	fail "the start on a changed log prepared the sandbox before it refused"
tail -n 3 "$T/agent.log" | grep "was changed after the agent wrote it" | grep "quarantine" | grep -q "decision\|seq" ||
	fail "the restart message does not name the change and the recovery: $(tail -n 3 "$T/agent.log")"
! tail -n 3 "$T/agent.log" | grep -q keygen || fail "the restart message speaks of keys: $(tail -n 3 "$T/agent.log")"
# The recovery it names: the log moved aside as evidence, a new one begins.
mv "$T/state/audit" "$T/state/audit.quarantine"
start_agent
wait_field "$T/drop/after.result.json" state completed 60
stop_agent
"$AGENT" verify "$T/state" > "$T/verify" 2>&1 || fail "the new log does not verify: $(cat "$T/verify")"
! "$AGENT" verify --pubkey "$T/keys/audit.key.pub" "$T/state/audit.quarantine" > "$T/verify" 2>&1 ||
	fail "the changed log verifies"
grep -q '^FAIL seq=' "$T/verify" || fail "verify of the kept log: $(cat "$T/verify")"

lib_finish agent_bounds
