#!/bin/sh
# The agent through the failures docs/ARCHITECTURE.md "Failure behaviour" names, for real:
#  - A full audit disk: the audit log directory is a 256 KiB tmpfs (root
#    only; 77 otherwise unless MAI_REQUIRE_REAL=1); filled up, a drop must
#    not run (state error about the audit log, no execution); freed, it runs.
#  - A run in progress when the audit disk fills: it is stopped, its record
#    ("interrupted", audit_unwritable) is written once there is room, and it
#    runs again under the same job.
#  - Docker not reachable when the agent starts: docker.socket names a Unix
#    socket path that does not exist yet; the agent starts anyway, answers
#    a drop with state error naming the socket, and once the path becomes a
#    symlink to the real engine's socket the job runs to completion.
# Exit 77 when the real engine is not usable, a failure instead when
# MAI_REQUIRE_REAL=1.
set -u

. "$(dirname "$0")/agent_lib.sh"
DOCKER_SOCK=/var/run/docker.sock

on_exit() {
	if grep -q " $T/state/audit " /proc/mounts 2>/dev/null; then
		umount "$T/state/audit" || umount -l "$T/state/audit"
	fi
}

require_docker "$DOCKER_SOCK"
LATE_SOCK="$T/late-docker.sock"
write_agent_config "$T/drop" "$T/state" "workers: 1
docker:
  socket: $LATE_SOCK"
[ "$(id -u)" = 0 ] || skip "mounting a small tmpfs for the full-audit-disk case needs root"
mkdir -p "$T/state/audit"
mount -t tmpfs -o size=256k,mode=0700 mai-itest-audit "$T/state/audit" ||
	skip "cannot mount a tmpfs on $T/state/audit"
# rotate_age 1s: a job dropped a second after the last record starts a new
# segment file, so its first record needs a fresh page of the tmpfs; without
# it the records could still fit in the slack of the last page of the
# segment after the filler took every free page, and the disk would not be
# full for them.
echo 'rotate_age: 1s' >> "$T/conf/audit.yaml"

# --- Docker not there at start: the agent runs and answers with error ---
start_agent

printf 'print("docker came back")\n' > "$T/drop/late.py"
wait_field "$T/drop/late.result.json" state error 20
grep -q "Docker is not usable at $LATE_SOCK" "$T/drop/late.result.json" ||
	fail "the error does not name the socket: $(cat "$T/drop/late.result.json")"
grep -q "start dockerd (packaging/ensure-docker.sh) or set docker.socket in config/agent.yaml" \
	"$T/drop/late.result.json" ||
	fail "the error does not say what to do: $(cat "$T/drop/late.result.json")"
kill -0 "$PID" 2>/dev/null || fail "the agent exited while Docker was down"

# --- Docker answers at the configured path: the job runs ---
ln -s "$DOCKER_SOCK" "$LATE_SOCK"
wait_field "$T/drop/late.result.json" state completed 90
[ "$(field "$T/drop/late.result.json" exit_code)" = 0 ] ||
	fail "late.py did not exit 0: $(cat "$T/drop/late.result.json")"
grep -q "Docker answers at $LATE_SOCK" "$T/agent.log" || fail "the log does not say Docker came back"

# --- a full audit disk: nothing runs without its records ---
dd if=/dev/zero of="$T/state/audit/filler" bs=4k > /dev/null 2>&1 # until ENOSPC
sleep 1.2 # past rotate_age: the next record opens a new segment
printf 'print("audited")\n' > "$T/drop/full.py"
wait_field "$T/drop/full.result.json" state error 20
[ "$(field "$T/drop/full.result.json" reason)" = audit_unwritable ] ||
	fail "full audit disk: reason is '$(field "$T/drop/full.result.json" reason)', expected audit_unwritable"
grep -q "the audit log cannot be written: No space left on device" "$T/drop/full.result.json" ||
	fail "full audit disk: the message does not name the audit log: $(cat "$T/drop/full.result.json")"
python3 -c 'import json,sys; sys.exit("execution" in json.load(open(sys.argv[1])))' \
	"$T/drop/full.result.json" || fail "full audit disk: the script ran: $(cat "$T/drop/full.result.json")"
rm -f "$T/state/audit/filler"
# The writer cut the failed write back to the last whole record and takes the
# next one once there is room: the retry of full.py and a new drop run in the
# same agent process, no restart.
grep -q "the next record tries again" "$T/agent.log" ||
	fail "the agent log does not say the failed audit write was undone: $(grep 'audit log' "$T/agent.log" | tail -3)"
wait_field "$T/drop/full.result.json" state completed 90
[ "$(field "$T/drop/full.result.json" exit_code)" = 0 ] ||
	fail "full.py did not exit 0 once the disk had room: $(cat "$T/drop/full.result.json")"
printf 'print("after the disk had room")\n' > "$T/drop/after.py"
wait_field "$T/drop/after.result.json" state completed 90
kill -0 "$PID" 2>/dev/null || fail "the agent that met the full disk is gone"
python3 -c 'import glob,sys
bad = [s for s in glob.glob(sys.argv[1] + "/seg-*.log") if open(s, "rb").read()[-1:] not in (b"", b"\n")]
sys.exit(1 if bad else 0)' "$T/state/audit" || fail "a segment ends in a torn record after the full disk"
"$AGENT" verify "$T/state" > "$T/verify" 2>&1 ||
	fail "the audit log does not verify with the agent still running: $(cat "$T/verify")"

# --- a run in progress when the audit disk fills: stopped, recorded when
# there is room again, then run again (nothing runs unrecorded) ---
printf 'import time\ntime.sleep(5)\nprint("slept")\n' > "$T/drop/slow.py"
wait_field "$T/drop/slow.result.json" state running 30
dd if=/dev/zero of="$T/state/audit/filler" bs=4k > /dev/null 2>&1 # until ENOSPC
sleep 1.2 # past rotate_age: the next record opens a new segment
printf 'print("trigger")\n' > "$T/drop/trigger.py" # its first record is refused
i=0
until grep -q "its record is written as soon as the log takes it" "$T/drop/slow.result.json" 2>/dev/null ||
	[ $i -ge 200 ]; do
	sleep 0.05
	i=$((i + 1))
done
[ "$(field "$T/drop/slow.result.json" reason)" = audit_unwritable ] ||
	fail "a run whose record cannot be written: $(cat "$T/drop/slow.result.json")"
[ -n "$(inflight_notes "$T/state")" ] || fail "no note of the run in flight while its record waits"
rm -f "$T/state/audit/filler"
wait_field "$T/drop/slow.result.json" state completed 90
[ "$(field "$T/drop/slow.result.json" execution.stdout.text)" = slept ] ||
	fail "slow.py did not run to its end once there was room: $(cat "$T/drop/slow.result.json")"
wait_field "$T/drop/trigger.result.json" state completed 90
# Its records: one job, the first run stopped and recorded as such, a retry,
# the second run.
python3 - "$T/state/audit" > "$T/slow.records" <<'PY' || fail "slow.py's records: $(cat "$T/slow.records")"
import glob, json, sys
recs = []
for seg in sorted(glob.glob(sys.argv[1] + "/seg-*.log")):
    for line in open(seg, encoding="ascii"):
        r = json.loads(line[156:])
        if r["fields"].get("file") == "slow.py":
            recs.append((r["type"], r["fields"].get("verdict"), r["fields"].get("reason")))
print(recs)
types = [t for t, _, _ in recs]
runs = [(v, why) for t, v, why in recs if t == "execution"]
ok = (types.count("job_accepted") == 1 and len(runs) == 2 and runs[0] == ("interrupted", "audit_unwritable")
      and runs[1][0] == "exited" and "retry" in types)
sys.exit(0 if ok else 1)
PY
[ -z "$(inflight_notes "$T/state")" ] || fail "a note of a run in flight is left: $(inflight_notes "$T/state")"

stop_agent
"$AGENT" verify "$T/state" > "$T/verify" 2>&1 || fail "the audit log does not verify: $(cat "$T/verify")"

lib_finish agent_failures
