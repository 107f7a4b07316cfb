# Sourced by the shell tests that need a real agent on a temp drop directory
# (agent_lib.sh and the scripts that source it, editors.sh,
# examples_run.sh): its configuration, starting and stopping it, and reading
# the fields of its result documents. Needs AGENT (the mai-agent binary).

# security.yaml of every test configuration: Bandit (on by default, about
# 0.3 s a job) stays off unless a test is about it; agent_cli.sh turns it on.
# A test that writes its own security.yaml starts it with this text.
AGENT_SECURITY_YAML='analyzers:
  bandit:
    enabled: false
'

# sandbox.yaml of every test configuration: no self-test at start and no
# warm pool (AGENT_POOL=N sets one). Each start of an agent otherwise
# created seven containers besides its jobs' (a self-test probe and 2 idle
# per level, the untrusted one under gVisor); on two CPUs each one Docker
# creates, starts and removes costs about half a CPU-second, and most tests'
# agents run a handful of scripts or none. Their runs take the cold path
# (a container created for the job), which a pool that is used up takes
# too. The self-test is test_sandbox's case and 'status --self-test'
# agent_cli.sh's; the warm pool is test_sandbox's and sandbox_end's cases,
# agent_dockerd.sh's and agent_outage.sh's (AGENT_POOL=1: pool containers
# a restarted dockerd killed are replaced), agent_answers.sh's (removed at
# a stop whose log pipe closed), bench_smoke's, and metrics.sh's (the
# shipped pool_size: auto, without the self-test). A test that writes its
# own sandbox.yaml starts it with this text.
AGENT_SANDBOX_YAML="self_test: false
pool_size: ${AGENT_POOL:-0}
"
# A uid range of this test's own (1024 uids from 0x71000000 up, by the
# shell's pid): an agent refuses to start when a process outside its
# engine's Mai containers runs in its range, and the tests run agents on
# private engines (agent_dockerd.sh) beside agents on the shared one.
_uid_first=$((1895825408 + ($$ % 100000) * 1024))
AGENT_SANDBOX_YAML="${AGENT_SANDBOX_YAML}uid_range: $_uid_first-$((_uid_first + 1023))
"
# The image this tree built (setup-common.sh), not :latest, which another
# tree's build on the same engine may point elsewhere.
if [ -n "${MAI_SANDBOX_IMAGE:-}" ]; then
	AGENT_SANDBOX_YAML="${AGENT_SANDBOX_YAML}image: $MAI_SANDBOX_IMAGE
"
fi

# agent_setup DIR: a configuration in DIR/conf (drop directory DIR/drop,
# state DIR/state, a fresh signing key DIR/audit.key, 1 s checkpoints) and
# MAI_CONFIG_DIR pointing at it. More lines may be appended to
# DIR/conf/sandbox.yaml before agent_start.
agent_setup() {
	mkdir -p "$1/conf" "$1/drop" || return 1
	printf 'drop_dir: %s\nstate_dir: %s\nsettle_delay: 50ms\nlog_level: debug\n' \
		"$1/drop" "$1/state" > "$1/conf/agent.yaml"
	printf '%s' "$AGENT_SECURITY_YAML" > "$1/conf/security.yaml"
	printf '%s' "$AGENT_SANDBOX_YAML" > "$1/conf/sandbox.yaml"
	# The engine's section, when a test runs the same checks on another
	# engine (swarm.sh runs examples_run.sh on a swarm).
	[ -n "${MAI_ENGINE_YAML:-}" ] && printf '%s\n' "$MAI_ENGINE_YAML" >> "$1/conf/sandbox.yaml"
	# And more lines of agent.yaml (swarm.sh: more workers for Swarm's
	# slower runs).
	[ -n "${MAI_AGENT_YAML:-}" ] && printf '%s\n' "$MAI_AGENT_YAML" >> "$1/conf/agent.yaml"
	"$AGENT" keygen "$1/audit.key" > /dev/null 2>&1 || { echo "FAIL: mai-agent keygen" >&2; return 1; }
	printf 'signing_key: %s\ncheckpoint_interval: 1s\n' "$1/audit.key" > "$1/conf/audit.yaml"
	MAI_CONFIG_DIR="$1/conf"
	export MAI_CONFIG_DIR
}

# agent_start DIR [ARGS...]: 'mai-agent run ARGS' in the background, its
# log in DIR/agent.log, and waits until DIR/state/status.json names this process
# (an older one may be there) or it has ended, up to AGENT_START_WAIT seconds
# (default 60: a start with the sandbox's self-test under gVisor took over
# 10 s on a loaded machine; a start that ends or is ready returns at once).
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
		[ $_i -ge $((${AGENT_START_WAIT:-60} * 20)) ]; do
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

# The one Python program behind field, wait_field, wait_final and
# wait_json: FSWAIT_DIR FILE SECONDS KEY CONDITION [ARG...]. CONDITION is a
# Python expression over f(K), the field K of the document as a string ('',
# when the file, the key or the document is missing; K may be dotted,
# decision.by, and a number indexes a list, dependencies.0), key and args
# (the ARGs). An empty CONDITION holds at once; otherwise it waits until it
# holds (exit 0) or SECONDS have passed (exit 1). Then it prints f(KEY)
# unless KEY is empty; with MAI_FIELD_COPY set, the document in which the
# condition held is also written there (a result changes while the agent
# works on it). One interpreter per wait, not one per poll: starting
# python3 costs tens of milliseconds, far more on a loaded machine. The
# wait reads FILE again at each change inotify reports (tests/tools/
# fswait.py; every 20 ms on a FUSE mount, where inotify does not see the
# agent's writes), not every 20 ms: each waiting test spent about 1% of a
# CPU polling, and the loops that started a python3 per poll far more.
_FSWAIT_DIR=${MAI_SOURCE_ROOT:-$(dirname "$0")/../..}/tests/tools
_FIELD_PY='import json, os, sys
path, seconds, key, cond, args = sys.argv[2], float(sys.argv[3]), sys.argv[4], sys.argv[5], sys.argv[6:]
text = ""
def f(k):
    try:
        v = json.loads(text)
        for part in k.split("."):
            v = v[int(part)] if isinstance(v, list) else (v.get(part) if isinstance(v, dict) else None)
    except (ValueError, IndexError):
        return ""
    return "" if v is None else str(v)
def holds():
    global text
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except OSError:
        text = ""
    return not cond or eval(cond)
ok = holds()
if not ok:
    sys.path.insert(0, sys.argv[1])
    import fswait
    ok = fswait.until(path, holds, seconds)
if key:
    print(f(key))
if not ok:
    sys.exit(1)
if os.environ.get("MAI_FIELD_COPY"):
    with open(os.environ["MAI_FIELD_COPY"], "w", encoding="utf-8") as fh:
        fh.write(text)'

# field FILE KEY: a string or number of a JSON document ('' when absent).
field() {
	python3 -c "$_FIELD_PY" "$_FSWAIT_DIR" "$1" 0 "$2" ""
}

# wait_field FILE KEY VALUE [SECONDS [COPY]]: until FILE's KEY is VALUE, up
# to SECONDS (default 10), the document seen then copied to COPY; otherwise
# calls fail (the script's) and returns 1.
wait_field() {
	_got=$(MAI_FIELD_COPY=${5:-} python3 -c "$_FIELD_PY" "$_FSWAIT_DIR" "$1" "${4:-10}" "$2" \
		'f(key) in args' "$3") && return 0
	fail "$1: $2 is '$_got', expected '$3'"
	return 1
}

# wait_final FILE [SECONDS]: until the result has a final state (completed,
# rejected, blocked, awaiting_confirmation), up to SECONDS (default 120).
wait_final() {
	_got=$(python3 -c "$_FIELD_PY" "$_FSWAIT_DIR" "$1" "${2:-120}" state 'f(key) in args' \
		completed rejected blocked awaiting_confirmation) && return 0
	fail "$1: no final state (state '$_got')"
	return 1
}

# wait_log FILE SECONDS PATTERN [COUNT]: until more than COUNT (0) lines of
# FILE match PATTERN (a Python regular expression searched in each line, as
# grep does); returns 1 after SECONDS. One python3 that reads what was
# appended at each inotify event (a grep every 10 ms cost far more over a
# wait of seconds; for a wait of a few 50 ms turns a grep loop costs less).
_LOG_PY='import re, sys
sys.path.insert(0, sys.argv[1])
import fswait
path, seconds, pattern, more = sys.argv[2], float(sys.argv[3]), re.compile(sys.argv[4]), int(sys.argv[5])
seen, pos, rest = 0, 0, b""
def counted():
    global seen, pos, rest
    try:
        with open(path, "rb") as f:
            f.seek(pos)
            data = f.read()
    except OSError:
        return False
    pos += len(data)
    lines = (rest + data).split(b"\n")
    rest = lines.pop()
    seen += sum(1 for line in lines if pattern.search(line.decode("utf-8", "replace")))
    return seen > more
sys.exit(0 if fswait.until(path, counted, seconds) else 1)'
wait_log() {
	python3 -c "$_LOG_PY" "$_FSWAIT_DIR" "$1" "$2" "$3" "${4:-0}"
}

# wait_json FILE SECONDS CONDITION [ARG...]: until CONDITION (Python, over
# f(KEY), the document's fields as field gives them, and args) holds for
# FILE, up to SECONDS; returns 1 after that, and the caller says what failed.
wait_json() {
	_wj_file=$1 _wj_s=$2 _wj_cond=$3
	shift 3
	python3 -c "$_FIELD_PY" "$_FSWAIT_DIR" "$_wj_file" "$_wj_s" "" "$_wj_cond" "$@"
}
