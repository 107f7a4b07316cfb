#!/bin/sh
# dockerd stopped while a script runs, then started again (issue 6, points
# 7 and 8), and a drop directory removed and re-created, for real.
#
# The shared engine is never touched: the test starts its own dockerd (its
# own socket, data root, exec root and managed containerd under the test's
# temporary directory, no bridge, no iptables rules, in a network namespace
# of the test's own) and loads the sandbox
# image into it from the root filesystem tarball that
# packaging/sandbox-image/build.sh caches. Then, with a script running:
#  - dockerd is stopped with SIGTERM; later dockerd and its containerd are
#    killed with SIGKILL (the container's shim lives on);
#  - the result must say state error with a message that says what to do,
#    the agent must keep running and retry with growing pauses;
#  - dockerd is started again on the same data root: the script runs again
#    and ends with exactly one final result, no container of the agent is
#    left in the engine, and the audit log verifies;
#  - status.json and 'mai-agent status' say whether Docker answers: false
#    while it is down (seen by a job, or by the agent's own check while
#    idle), true again once it is back, each within seconds.
# Needs root and dockerd; exit 77 without them, a failure instead when
# MAI_REQUIRE_REAL=1.
set -u

# The warm pool is on: what a restarted dockerd does to it is tested here.
AGENT_POOL=1
. "$(dirname "$0")/agent_lib.sh"

D="$T/d" # the private engine: socket, data root, exec root, log
DSOCK="$D/docker.sock"
# Its network namespace: a dockerd started with --bridge=none deletes the
# default bridge (docker0) of the namespace it runs in, so in the host's it
# took the shared engine's bridge away. The agent talks to it over its Unix
# socket; its containers have no network.
DNS=mai-dockerd-$$
DPID=
BUILD_SH="${MAI_SOURCE_ROOT:-$(dirname "$0")/../..}/packaging/sandbox-image/build.sh"

# The processes of the private engine that outlive it (a killed
# containerd's shims) name its exec root on their command line: one grep
# over every command line, not a subshell and a tr per process (hundreds
# of processes at each look); "[/]" keeps grep's own from matching.
engine_pids() {
	grep -las -- "$T/d[/]" /proc/[0-9]*/cmdline | sed -n 's|^/proc/\([0-9]*\)/cmdline$|\1|p'
}

dockerd_stop_all() {
	if [ -n "$DPID" ] && kill -0 "$DPID" 2>/dev/null; then
		kill -TERM "$DPID"
		i=0
		while kill -0 "$DPID" 2>/dev/null && [ $i -lt 300 ]; do sleep 0.05; i=$((i + 1)); done
		kill -KILL "$DPID" 2>/dev/null
		wait "$DPID" 2>/dev/null
	fi
	DPID=
	# A shim left by a killed containerd, and its container's processes
	# (in the cgroups named after the container id, which the shim names).
	for p in $(engine_pids); do
		id=$({ tr '\0' '\n' < "/proc/$p/cmdline"; } 2>/dev/null | sed -n '/^-id$/{n;p}')
		kill -KILL "$p" 2>/dev/null
		[ -n "$id" ] || continue
		for c in /sys/fs/cgroup/*/docker/"$id" /sys/fs/cgroup/docker/"$id"; do
			[ -f "$c/cgroup.procs" ] && xargs -r kill -KILL < "$c/cgroup.procs" 2>/dev/null
			sleep 0.1
			rmdir "$c" 2>/dev/null
		done
	done
	# Overlay and network namespace mounts of the engine, deepest first.
	awk -v d="$D/" 'index($2, d) == 1 { print $2 }' /proc/mounts | sort -r |
		while read -r m; do umount -l "$m"; done
}

on_exit() {
	dockerd_stop_all
	ip netns delete "$DNS" 2>/dev/null
}

# dockerd_start: the private engine on the same data root each time;
# returns once it answers (up to 20 s).
dockerd_start() {
	# nsenter --net, not ip netns exec: that remounts /sys, and dockerd
	# would not see the cgroups.
	nsenter --net="/run/netns/$DNS" dockerd --config-file "$D/daemon.json" --host "unix://$DSOCK" \
		--data-root "$D/data" --exec-root "$D/exec" --pidfile "$D/docker.pid" \
		--bridge=none --iptables=false --ip6tables=false --ip-masq=false \
		--shutdown-timeout=1 >> "$D/dockerd.log" 2>&1 &
	DPID=$!
	i=0
	until curl -sf --unix-socket "$DSOCK" http://localhost/_ping > /dev/null 2>&1; do
		if ! kill -0 "$DPID" 2>/dev/null || [ $i -ge 400 ]; then
			tail -20 "$D/dockerd.log" >&2
			skip "the private dockerd did not start (its log above)"
		fi
		sleep 0.05
		i=$((i + 1))
	done
}

# dockerd_kill SIGNAL: SIGTERM stops dockerd (and its containers) cleanly;
# KILL kills dockerd and its containerd at once, leaving the shims. Does
# not wait: dockerd_reap does.
dockerd_kill() {
	if [ "$1" = KILL ]; then
		kill -KILL "$(cat "$D/exec/containerd/containerd.pid")" "$DPID"
	else
		kill -TERM "$DPID"
	fi
}

dockerd_reap() {
	wait "$DPID"
	DPID=
}

[ "$(id -u)" = 0 ] || skip "a private dockerd needs root"
command -v dockerd > /dev/null || skip "dockerd is not installed"
TARBALL=$("$BUILD_SH" --print-cache)
[ -s "$TARBALL" ] || skip "no cached sandbox root filesystem $TARBALL: run $BUILD_SH once"

mkdir -p "$D"
echo '{}' > "$D/daemon.json" # not the shared engine's /etc/docker/daemon.json
ip netns add "$DNS" || skip "cannot make a network namespace for the private dockerd"
# The host's default bridge, if the shared engine has one, must outlive the
# private engine.
had_docker0=no
[ -e /sys/class/net/docker0 ] && had_docker0=yes
dockerd_start
DOCKER_SOCKET="$DSOCK" "$BUILD_SH" > "$D/build.log" 2>&1 ||
	{ cat "$D/build.log" >&2; fail "cannot load the sandbox image into the private engine"; exit 1; }

write_agent_config "$T/drop" "$T/state" "workers: 1
docker:
  socket: $DSOCK
  retry_backoff_max: 2s
  check_interval: 1s"
start_agent
wait_log "$T/agent.log" 30 "sandbox ready" || fail "the agent did not take the private engine in 30 s"

# --- runtime auto where dockerd has no runsc (this engine's daemon.json is
# {}): the untrusted level runs with runc, and says so once, in the log,
# status.json and 'mai-agent status' (agent_trust.sh: runsc where it is) ---
[ "$(field "$T/state/status.json" runtimes.untrusted)" = runc ] ||
	fail "runtime auto without gVisor: untrusted is '$(field "$T/state/status.json" runtimes.untrusted)', expected runc"
field "$T/state/status.json" warnings.0 | grep -q "^runtime auto (untrusted): gVisor (runsc) is not registered" ||
	fail "status.json has no warning about runtime auto: $(cat "$T/state/status.json")"
[ "$(grep -c "runtime auto (untrusted): gVisor (runsc) is not registered" "$T/agent.log")" = 1 ] ||
	fail "the runtime auto warning is not in the log exactly once"
"$AGENT" status 2>&1 | grep -q "^warning: runtime auto (untrusted)" ||
	fail "mai-agent status does not show the runtime warning"

# --- the drop directory removed and re-created: watched again ---
rm -rf "$T/drop"
mkdir "$T/drop"
i=0
until grep -q "drop directory $T/drop is back" "$T/agent.log" || [ $i -ge 100 ]; do
	sleep 0.05
	i=$((i + 1))
done
printf 'print("in the new directory")\n' > "$T/drop/again.py"
wait_field "$T/drop/again.result.json" state completed 20
grep -q "in the new directory" "$T/drop/again.result.json" ||
	fail "again.py: its output is not in the result: $(cat "$T/drop/again.result.json")"

# --- a PEP 723 block where the engine lacks the image that reads it (this
# engine has only the sandbox image): an error answer that names the
# missing image and its build command, retried, never a final rejection
# that blames the script ---
printf '# /// script\n# requires-python = ">=3.8"\n# ///\nprint(1)\n' > "$T/drop/pep.py"
wait_field "$T/drop/pep.result.json" state error 20
[ "$(field "$T/drop/pep.result.json" reason)" = sandbox_unavailable ] ||
	fail "pep.py: reason $(field "$T/drop/pep.result.json" reason), expected sandbox_unavailable"
field "$T/drop/pep.result.json" message | grep -q "mai-sandbox-pip:latest .*build.sh --variant pip" ||
	fail "pep.py: the message does not name the image and its build: $(field "$T/drop/pep.result.json" message)"
rm -f "$T/drop/pep.py"

# wait_docker VALUE SECONDS: until status.json says docker_reachable VALUE
# (True or False); prints how many ms that took.
wait_docker() {
	t0=$(date +%s%N)
	wait_json "$T/state/status.json" "$2" 'f("docker_reachable") == args[0]' "$1"
	rc=$?
	echo $((($(date +%s%N) - t0) / 1000000))
	return $rc
}

ms=$(wait_docker True 3) || fail "status.json: docker_reachable is not true while the engine runs"
"$AGENT" status > "$T/status" 2>&1
grep -Eq '^docker: reachable \(checked [0-9] s ago\)$' "$T/status" ||
	fail "status does not say Docker is reachable, checked seconds ago: $(cat "$T/status")"

# count_lines PATTERN: lines of the agent log that match.
count_lines() { grep -c "$1" "$T/agent.log"; }

# wait_more PATTERN N SECONDS: until more than N lines match (it was a
# grep every 10 ms, for seconds at a time).
wait_more() {
	wait_log "$T/agent.log" "$3" "$1" "$2"
}

# line_ms PATTERN K: the time (ms since the epoch) the agent stamped on the
# K-th line of its log that matches (--log-file lines start with their
# RFC 3339 time): when the agent did it, however late this script looks.
line_ms() {
	grep "$1" "$T/agent.log" | sed -n "${2}p" | python3 -c 'import sys, datetime
stamp = sys.stdin.read().split(" ", 1)[0]
t = datetime.datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=datetime.timezone.utc)
print(int(t.timestamp() * 1000))'
}

# outage SIGNAL NAME: NAME runs, dockerd goes down with SIGNAL, comes back.
outage() {
	sig=$1 name=$2
	r="$T/drop/$name.result.json"
	# It sleeps until 20 s after the drop (a container's clock is the
	# host's): long enough that Docker goes down while it runs even when the
	# test itself is slow to see it running (a loaded machine), and the
	# private engine stops its containers 1 s after a SIGTERM
	# (--shutdown-timeout); the run after the outage sleeps what is left.
	printf 'import time\ntime.sleep(max(0, %d - time.time()))\nprint("slept through %s")\n' \
		$(($(date +%s) + 20)) "$sig" > "$T/drop/$name.py"
	wait_field "$r" state running 20 || return
	sleep 0.5
	errors=$(count_lines "$name.py: error")
	retries=$(count_lines "retrying $name.py\$")
	dockerd_kill "$sig"
	# Backoff: from the error to the first retry is the base (1 s), to the
	# second twice that (plus the failed attempt), as the agent's own
	# timestamps say.
	wait_more "$name.py: error" "$errors" 20 || fail "$sig: no error logged for $name.py"
	wait_more "retrying $name.py\$" $((retries + 1)) 10 || fail "$sig: no second retry"
	t0=$(line_ms "$name.py: error" $((errors + 1)))
	t1=$(line_ms "retrying $name.py\$" $((retries + 1)))
	t2=$(line_ms "retrying $name.py\$" $((retries + 2)))
	gap1=$((t1 - t0)) gap2=$((t2 - t1))
	[ $gap1 -ge 700 ] && [ $gap2 -ge $((gap1 + 500)) ] ||
		fail "$sig: no backoff: $gap1 ms then $gap2 ms between retries"
	dockerd_reap
	# While Docker is down the job goes from error back to queued and running
	# at each retry: the error result is read as one document when it is there.
	wait_field "$r" state error 10 "$T/$name.error.json" || return
	[ "$(field "$T/$name.error.json" reason)" = sandbox_unavailable ] ||
		fail "$sig: reason is '$(field "$T/$name.error.json" reason)', expected sandbox_unavailable: $(cat "$T/$name.error.json")"
	msg=$(field "$T/$name.error.json" message)
	case "$msg" in
	*"Docker is not usable at $DSOCK: Docker not reachable at unix://$DSOCK"*"start dockerd"*"it retries on its own"*) ;;
	*) fail "$sig: the message does not name the socket and what to do: $msg" ;;
	esac
	kill -0 "$PID" 2>/dev/null || { fail "$sig: the agent exited while Docker was down"; return; }
	wait_docker False 3 > /dev/null ||
		fail "$sig: status.json does not say Docker is unreachable: $(cat "$T/state/status.json")"

	dockerd_start
	wait_field "$r" state completed 60 || return
	[ "$(field "$r" exit_code)" = 0 ] || fail "$sig: $name.py did not exit 0: $(cat "$r")"
	grep -q "slept through $sig" "$r" || fail "$sig: $name.py's output is not in the result"
	n=$(count_lines "$name.py: completed")
	[ "$n" -eq 1 ] || fail "$sig: $name.py has $n final results, expected 1"
	n=$(leftover_containers "$DSOCK" 10)
	[ "$n" = 0 ] || fail "$sig: $n container(s) of this agent left in the engine 10 s after the result (besides its idle warm pool)"
}

outage TERM sleeper
outage KILL killed

# --- Docker reachability while idle: the agent's own check, not a job ---
ms=$(wait_docker True 3) || fail "idle: docker_reachable is not true after the engine came back"
dockerd_kill TERM
dockerd_reap
ms=$(wait_docker False 5) || fail "idle: status.json still says Docker is reachable 5 s after it stopped"
[ "$ms" -le 3500 ] || fail "idle: $ms ms until status.json said Docker is unreachable (check_interval 1s)"
"$AGENT" status > "$T/status" 2>&1
grep -q "^docker: NOT reachable (checked [0-9] s ago): .*$DSOCK.*start dockerd" "$T/status" ||
	fail "status does not say Docker is unreachable, when, and what to do: $(cat "$T/status")"
dockerd_start
ms=$(wait_docker True 5) || fail "idle: status.json does not say Docker is reachable again 5 s after it came back"

stop_agent
n=$(containers_of_instance "$DSOCK")
[ "$n" = 0 ] || fail "after the agent stopped: $n container(s) of this agent left in the engine"
"$AGENT" verify "$T/state" > "$T/verify" 2>&1 || fail "the audit log does not verify: $(cat "$T/verify")"
grep -q '^OK ' "$T/verify" || fail "verify did not say OK: $(cat "$T/verify")"

dockerd_stop_all
if [ "$had_docker0" = yes ] && [ ! -e /sys/class/net/docker0 ]; then
	fail "the host's docker0 bridge is gone after the private dockerd ran"
fi

lib_finish agent_dockerd
