# Sourced by the agent's integration scripts (agent_cli.sh, agent_failures.sh,
# agent_dockerd.sh, network.sh): the temporary directory, failure counting,
# skipping, starting and stopping a 'mai-agent run' (agent_start.sh, which
# also reads result.json fields).
#
# Sets AGENT, T (removed at exit), PID (the running agent, or empty) and
# fails. A script that needs more at exit defines on_exit(); it runs after
# the agent is stopped, before T is removed (kept when MAI_ITEST_KEEP is set,
# for a post-mortem). Not executable on its own.

AGENT=${MAI_AGENT:?MAI_AGENT must name the mai-agent binary}
T=$(mktemp -d "${TMPDIR:-/tmp}/mai-itest.$(basename "$0" .sh).XXXXXX")
PID=
fails=0

# own_child PID: PID is still a child of this shell. A child that ended and
# was reaped frees its number, which the kernel soon gives to another
# process (pid_max is 32768 on this kind of machine, and the suite starts
# thousands): a signal sent by number must not reach another test's agent.
own_child() {
	[ -n "$1" ] && [ "$(ps -o ppid= -p "$1" 2>/dev/null | tr -d ' ')" = "$$" ]
}

lib_cleanup() {
	if own_child "$PID"; then
		kill -TERM "$PID"
		wait "$PID" 2>/dev/null
	fi
	if command -v on_exit > /dev/null 2>&1; then
		on_exit
	fi
	if [ -n "${MAI_ITEST_KEEP:-}" ]; then
		echo "kept $T (MAI_ITEST_KEEP)" >&2
	else
		rm -rf "$T"
	fi
}
trap lib_cleanup EXIT
# A signal ends the script through the EXIT trap, so cleanup runs once.
trap 'exit 130' INT TERM HUP

fail() {
	echo "FAIL: $*" >&2
	fails=$((fails + 1))
}

# skip REASON: exit 77, or fail when MAI_REQUIRE_REAL=1.
skip() {
	if [ "${MAI_REQUIRE_REAL:-0}" = 1 ]; then
		echo "FAIL: $* (MAI_REQUIRE_REAL=1)" >&2
		exit 1
	fi
	echo "SKIP: $*" >&2
	exit 77
}

# skip_part REASON: one part of the script cannot run here: a failure when
# MAI_REQUIRE_REAL=1; otherwise the script goes on and, if nothing failed,
# exits 77 at lib_finish, so the skip shows in meson's summary.
parts_skipped=
skip_part() {
	if [ "${MAI_REQUIRE_REAL:-0}" = 1 ]; then
		fail "$* (a skip, and MAI_REQUIRE_REAL=1)"
		return
	fi
	echo "SKIP part: $*" >&2
	parts_skipped="$parts_skipped
  $*"
}

# hup_wait: SIGHUP to the agent, then wait (up to 30 s) until its log says
# that this reload is over, taken or refused; returns 1 if it never did.
hup_wait() {
	_hups=$(grep -c -e 'configuration reloaded' -e 'configuration is refused' "$T/agent.log")
	kill -HUP "$PID"
	_i=0
	until [ "$(grep -c -e 'configuration reloaded' -e 'configuration is refused' "$T/agent.log")" -gt "$_hups" ]; do
		[ $_i -ge 600 ] && return 1
		sleep 0.05
		_i=$((_i + 1))
	done
}

# require_docker SOCKET: the engine must answer there.
require_docker() {
	curl -sf --unix-socket "$1" http://localhost/_ping > /dev/null 2>&1 ||
		skip "the Docker engine does not answer at $1"
}

# write_agent_config DIR STATE [EXTRA-YAML]: agent.yaml for a drop directory
# DIR and a state directory STATE, a fresh signing key and audit.yaml,
# security.yaml with Bandit off (AGENT_SECURITY_YAML), sandbox.yaml with the
# suite's pool and no self-test (AGENT_SANDBOX_YAML); exports MAI_CONFIG_DIR.
write_agent_config() {
	mkdir -p "$T/conf" "$T/keys" "$1"
	cat > "$T/conf/agent.yaml" <<EOF
drop_dir: $1
state_dir: $2
settle_delay: 50ms
log_level: debug
${3:-}
EOF
	"$AGENT" keygen "$T/keys/audit.key" > /dev/null 2>&1 || { echo "FAIL: keygen" >&2; exit 1; }
	printf 'signing_key: %s\ncheckpoint_interval: 1s\n' "$T/keys/audit.key" > "$T/conf/audit.yaml"
	printf '%s' "$AGENT_SECURITY_YAML" > "$T/conf/security.yaml"
	printf '%s' "$AGENT_SANDBOX_YAML" > "$T/conf/sandbox.yaml"
	export MAI_CONFIG_DIR="$T/conf"
}

# shellcheck source=agent_start.sh
. "$(dirname "$0")/agent_start.sh"

# start_agent [ARGS...]: extra arguments go to 'mai-agent run'. Returns
# once status.json names the new process (an old one may be there); skips
# when Docker or the sandbox image is not usable (exit 4), unless the script
# has checked both itself and set DOCKER_CHECKED=1: then exit 4 is the
# agent's own failure (a sandbox setup that went wrong) and fails the test.
start_agent() {
	agent_start "$T" "$@"
	rc=$?
	PID=$AGENT_PID
	[ $rc -eq 0 ] && return 0
	if [ $rc -eq 4 ] && [ "${DOCKER_CHECKED:-0}" != 1 ]; then
		grep error "$T/agent.log" >&2
		skip "Docker or the sandbox image is not usable (mai-agent run exited 4)"
	fi
	fail "the agent did not start (exit $rc)"
	cat "$T/agent.log" >&2
	exit 1
}

# stop_agent: SIGTERM, and the agent must exit 0.
stop_agent() {
	own_child "$PID" && kill -TERM "$PID"
	wait "$PID"
	rc=$?
	[ $rc -eq 0 ] || fail "SIGTERM: the agent exited $rc, expected 0"
	PID=
}

# containers_of_instance [SOCKET [SECONDS]]: how many containers (any state)
# carry this agent's mai.instance label (its state directory), asked of the
# Engine API. With SECONDS, asks again every 100 ms until there are none or
# SECONDS have passed: the agent removes a finished run's container in the
# background, after its result.
containers_of_instance() {
	python3 -c "$_CONTAINERS_PY" "${1:-/var/run/docker.sock}" "$T/state" "${2:-0}" all
}

# unmount_view DIR: a FUSE mount left on DIR (an agent's --mount) goes.
unmount_view() {
	if grep -q " $1 " /proc/mounts 2>/dev/null; then
		fusermount3 -u -z "$1" 2>/dev/null || umount -l "$1"
	fi
}

# leftover_containers [SOCKET [SECONDS]]: the same, leaving out the warm
# pool's (labelled mai.job=pool-LEVEL, created or running: being prepared
# or waiting): what a finished job must not leave behind while the agent
# runs with its pool (pool_size: auto).
leftover_containers() {
	python3 -c "$_CONTAINERS_PY" "${1:-/var/run/docker.sock}" "$T/state" "${2:-0}" jobs
}

_CONTAINERS_PY='import http.client, json, socket, sys, time, urllib.parse
sock, instance, seconds, which = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
class UnixConnection(http.client.HTTPConnection):
    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.connect(sock)
query = urllib.parse.quote(json.dumps({"label": ["mai.instance=" + instance]}))
def idle_pool(c):
    return c["State"] in ("created", "running") and c["Labels"].get("mai.job", "").startswith("pool-")
def count():
    c = UnixConnection("localhost", timeout=10)
    c.request("GET", "/containers/json?all=1&filters=" + query)
    found = json.loads(c.getresponse().read())
    c.close()
    return sum(1 for c in found if which == "all" or not idle_pool(c))
end = time.monotonic() + seconds
n = count()
while n and time.monotonic() < end:
    time.sleep(0.1)
    n = count()
print(n)'

# audit_records LOG_DIR TYPE FILE: the fields and seq of every record of
# TYPE about FILE, one JSON document a line, read straight from the log's
# segments.
audit_records() {
	python3 -c 'import json,sys,glob
for seg in sorted(glob.glob(sys.argv[1] + "/seg-*.log")):
    for line in open(seg, encoding="utf-8"):
        rec = json.loads(line.split(" ", 4)[4])
        if rec["type"] == sys.argv[2] and rec["fields"].get("file") == sys.argv[3]:
            print(json.dumps(dict(rec["fields"], seq=rec["seq"])))' "$@"
}
# inflight_notes STATE_DIR: the files of STATE_DIR/running/ that note a run
# in flight (daemon_inflight.h), one name a line; a worker's idle slot
# ({} padded) is not one.
inflight_notes() {
	python3 -c 'import glob, json, os, sys
for p in sorted(glob.glob(sys.argv[1] + "/running/*")):
    try:
        note = json.load(open(p))
    except ValueError:
        note = None
    if note != {}:
        print(os.path.basename(p))' "$1"
}
# as USER CMD...: CMD as USER, with USER's groups, umask 022 (setpriv).
as() {
	_u=$1
	shift
	setpriv --reuid="$(id -u "$_u")" --regid="$(id -g "$_u")" --init-groups -- \
		sh -c 'umask 022; exec "$@"' sh "$@"
}
# put_as USER FILE: standard input into FILE, written by USER.
put_as() { as "$1" sh -c 'cat > "$1"' sh "$2"; }

# lib_finish NAME: the verdict of the script.
lib_finish() {
	if [ $fails -ne 0 ]; then
		echo "--- agent log (tail) ---" >&2
		grep -v debug "$T/agent.log" | tail -30 >&2
		exit 1
	fi
	if [ -n "$parts_skipped" ]; then
		echo "SKIP: $1: the other checks passed, but these parts did not run:$parts_skipped" >&2
		exit 77
	fi
	echo "$1: all checks passed"
}
