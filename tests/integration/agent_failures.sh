#!/bin/sh
# The agent through the failures DESIGN.md names, for real:
#  - A full audit disk: the audit log directory is a 256 KiB tmpfs (root
#    only; 77 otherwise unless MAI_REQUIRE_REAL=1); filled up, a drop must
#    not run (state error about the audit log, no execution); freed, it runs.
#  - Docker not reachable when the agent starts: docker.socket names a Unix
#    socket path that does not exist yet; the agent starts anyway, answers
#    a drop with state error naming the socket, and once the path becomes a
#    symlink to the real engine's socket the job runs to completion.
# Exit 77 when the real engine is not usable, a failure instead when
# MAI_REQUIRE_REAL=1.
set -u

AGENT=${MAI_AGENT:?MAI_AGENT must name the mai-agent binary}
DOCKER_SOCK=/var/run/docker.sock
T=$(mktemp -d "${TMPDIR:-/tmp}/mai-itest.XXXXXX")
PID=
fails=0

cleanup() {
	if [ -n "$PID" ] && kill -0 "$PID" 2>/dev/null; then
		kill -TERM "$PID"
		wait "$PID" 2>/dev/null
	fi
	if grep -q " $T/state/audit " /proc/mounts 2>/dev/null; then
		umount "$T/state/audit" || umount -l "$T/state/audit"
	fi
	rm -rf "$T"
}
trap cleanup EXIT

fail() {
	echo "FAIL: $*" >&2
	fails=$((fails + 1))
}

skip() {
	if [ "${MAI_REQUIRE_REAL:-0}" = 1 ]; then
		echo "FAIL: $* (MAI_REQUIRE_REAL=1)" >&2
		exit 1
	fi
	echo "SKIP: $*" >&2
	exit 77
}

[ -S "$DOCKER_SOCK" ] && curl -sf --unix-socket "$DOCKER_SOCK" http://localhost/_ping > /dev/null ||
	skip "the Docker engine does not answer at $DOCKER_SOCK"

field() {
	python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
v=d.get(sys.argv[2])
print("" if v is None else v)' "$1" "$2" 2>/dev/null
}

# wait_field FILE KEY VALUE SECONDS
wait_field() {
	i=0
	while [ $i -lt $(($4 * 10)) ]; do
		[ -f "$1" ] && [ "$(field "$1" "$2")" = "$3" ] && return 0
		sleep 0.1
		i=$((i + 1))
	done
	fail "$1: $2 is '$(field "$1" "$2")', expected '$3'"
	return 1
}

mkdir -p "$T/conf" "$T/drop" "$T/keys"
LATE_SOCK="$T/late-docker.sock"
cat > "$T/conf/agent.yaml" <<EOF
drop_dir: $T/drop
state_dir: $T/state
settle_delay: 50ms
workers: 1
log_level: debug
docker:
  socket: $LATE_SOCK
EOF
export MAI_CONFIG_DIR="$T/conf"
[ "$(id -u)" = 0 ] || skip "mounting a small tmpfs for the full-audit-disk case needs root"
mkdir -p "$T/state/audit"
mount -t tmpfs -o size=256k,mode=0700 mai-itest-audit "$T/state/audit" ||
	skip "cannot mount a tmpfs on $T/state/audit"
"$AGENT" keygen "$T/keys/audit.key" > /dev/null 2>&1 || { echo "FAIL: keygen" >&2; exit 1; }
# rotate_age 1s: a job dropped a second after the last record starts a new
# segment file, so its first record needs a fresh page of the tmpfs; without
# it the records could still fit in the slack of the last page of the
# segment after the filler took every free page, and the disk would not be
# full for them.
printf 'signing_key: %s\nrotate_age: 1s\n' "$T/keys/audit.key" > "$T/conf/audit.yaml"

# --- Docker not there at start: the agent runs and answers with error ---
"$AGENT" run --log-file "$T/agent.log" &
PID=$!
i=0
until grep -q "\"pid\": $PID," "$T/state/status.json" 2>/dev/null || [ $i -ge 200 ]; do
	sleep 0.05
	i=$((i + 1))
done
kill -0 "$PID" 2>/dev/null || { wait "$PID"; echo "FAIL: the agent exited $? with Docker down" >&2; cat "$T/agent.log" >&2; PID=; exit 1; }

printf 'print("docker came back")\n' > "$T/drop/late.py"
wait_field "$T/drop/late.result.json" state error 20
grep -q "Docker is not usable at $LATE_SOCK" "$T/drop/late.result.json" ||
	fail "the error does not name the socket: $(cat "$T/drop/late.result.json")"
grep -q "start Docker, or fix docker.socket in agent.yaml" "$T/drop/late.result.json" ||
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

kill -TERM "$PID"
wait "$PID"
rc=$?
PID=
[ $rc -eq 0 ] || fail "SIGTERM: the agent exited $rc, expected 0"
"$AGENT" verify "$T/state" > "$T/verify" 2>&1 || fail "the audit log does not verify: $(cat "$T/verify")"

if [ $fails -ne 0 ]; then
	echo "--- agent log (tail) ---" >&2
	grep -v debug "$T/agent.log" | tail -30 >&2
	exit 1
fi
echo "agent_failures: all checks passed"
