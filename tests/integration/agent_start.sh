# Sourced by the shell tests that need a real agent on a temp drop directory
# (agent_cli.sh, agent_failures.sh, editors.sh, examples_run.sh). Needs AGENT (the mai-agent binary).

# security.yaml of every test configuration: Bandit (on by default, about
# 0.3 s a job) stays off unless a test is about it; agent_cli.sh turns it on.
# A test that writes its own security.yaml starts it with this text.
AGENT_SECURITY_YAML='analyzers:
  bandit:
    enabled: false
'

# agent_setup DIR: a configuration in DIR/conf (drop directory DIR/drop,
# state DIR/state, a fresh signing key DIR/audit.key, 1 s checkpoints) and
# MAI_CONFIG_DIR pointing at it. More files (sandbox.yaml) may be added to
# DIR/conf before agent_start.
agent_setup() {
	mkdir -p "$1/conf" "$1/drop" || return 1
	printf 'drop_dir: %s\nstate_dir: %s\nsettle_delay: 50ms\nlog_level: debug\n' \
		"$1/drop" "$1/state" > "$1/conf/agent.yaml"
	printf '%s' "$AGENT_SECURITY_YAML" > "$1/conf/security.yaml"
	"$AGENT" keygen "$1/audit.key" > /dev/null 2>&1 || { echo "FAIL: mai-agent keygen" >&2; return 1; }
	printf 'signing_key: %s\ncheckpoint_interval: 1s\n' "$1/audit.key" > "$1/conf/audit.yaml"
	MAI_CONFIG_DIR="$1/conf"
	export MAI_CONFIG_DIR
}

# agent_start DIR [ARGS...]: 'mai-agent run ARGS' in the background, its
# log in DIR/agent.log, and waits until DIR/state/status.json names this process
# (an older one may be there), up to AGENT_START_WAIT seconds (default 10).
# Sets AGENT_PID and returns 0 while it runs;
# when it ended, returns its exit status (4: Docker or the sandbox image
# is not usable; 1 for an exit 0) with AGENT_PID empty.
agent_start() {
	_dir=$1
	shift
	"$AGENT" run --log-file "$_dir/agent.log" "$@" &
	AGENT_PID=$!
	_i=0
	until grep -q "\"pid\": $AGENT_PID," "$_dir/state/status.json" 2>/dev/null ||
		[ $_i -ge $((${AGENT_START_WAIT:-10} * 20)) ]; do
		kill -0 "$AGENT_PID" 2>/dev/null || break
		sleep 0.05
		_i=$((_i + 1))
	done
	kill -0 "$AGENT_PID" 2>/dev/null && return 0
	wait "$AGENT_PID"
	_rc=$?
	AGENT_PID=
	[ $_rc -eq 0 ] && _rc=1
	return $_rc
}

# agent_start_or_skip DIR [ARGS...]: agent_start; when the agent did not
# start, calls skip (the sourcing test's: exit 77, or a failure under
# MAI_REQUIRE_REAL=1) if Docker or the sandbox image is not usable, else
# prints its log and exits 1.
agent_start_or_skip() {
	agent_start "$@"
	_rc=$?
	[ $_rc -eq 0 ] && return 0
	[ $_rc -eq 4 ] && skip "Docker or the sandbox image is not usable for the agent"
	echo "FAIL: the agent did not start (exit $_rc)" >&2
	cat "$1/agent.log" >&2
	exit 1
}

# agent_stop: SIGTERM, and wait until the agent has ended.
agent_stop() {
	[ -n "${AGENT_PID:-}" ] && kill -TERM "$AGENT_PID" 2>/dev/null && wait "$AGENT_PID"
	AGENT_PID=
}
