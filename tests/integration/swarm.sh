#!/bin/sh
# The Swarm engine (engine.mode: swarm) on a real three-node swarm that the
# test makes and unmakes (swarm_nodes.sh: three dockerds in network
# namespaces, node 3 with gVisor as its default runtime). One swarm serves
# every check here, to keep the suite's time:
#  - every example script through Swarm ends as examples_run.sh expects of
#    a local engine (state, verdict, exit code, the sidecars' schemas);
#  - every node proved its settings with a probe job before any run went
#    there, and the audit log, status.json and 'mai-agent status' say so;
#    results name the node and say the end and the usage came from the task;
#  - a run that starts more threads than its pids limit ends with verdict
#    pids_limit, as locally;
#  - a run whose node reports its end after the run's time limit (its
#    container's shim frozen) is answered with its own exit, not a timeout:
#    the limit is kept on the node;
#  - a run reaches neither another run (listening at the same time on the
#    same node), nor a node's address, nor the outside;
#  - network: allowlist (the standard level of this test's agent): each
#    run has a filtering proxy service of its own; through it a run fetches
#    from the listed host (a web server in a namespace of the test's) and is
#    refused (403) a host not listed, an IP literal not listed and a
#    CONNECT to one; it reaches neither the listed host without the proxy
#    nor another run's proxy (on its run's network or the egress network);
#    the proxy's decisions are in the agent's proxy log, as locally; its
#    PEP 723 dependency is installed by pip through its proxy;
#  - a node whose probe fails (a runc node labelled untrusted) is not used,
#    and 'mai-agent status' says why; an overridden BLOCKED script runs
#    untrusted on the gVisor node;
#  - a remote Docker engine over mutual TLS (node 1's dockerd on TCP, the
#    agent in a namespace of its own): plain TCP refused, a wrong CA
#    refused, DOCKER_HOST/DOCKER_TLS_VERIFY/DOCKER_CERT_PATH honoured, the
#    end and usage from the Engine API, the warm pool on that engine;
#  - the agent killed with SIGKILL mid-burst: the next start sweeps what
#    it left in the swarm, records its runs in flight as interrupted and
#    runs them again; each script answered once, no run started on a node
#    without an execution record of its own;
#  - a worker's dockerd killed mid-burst: its runs are lost, answered
#    "error", recorded (retry) and run again on another node, every script
#    answered exactly once;
#  - then the manager unreachable (its dockerd frozen) for 10 s while runs
#    go on: each answered once, with its output;
#  - after the agent stops, no service, config or network of its instance
#    is left in the swarm; and after the test, no namespace, daemon, mount
#    or interface (swarm_down).
# Needs root, ip, nsenter, unshare, dockerd, the docker CLI (the test's own
# tool) and the cached sandbox root filesystem: exit 77 without them, a
# failure under MAI_REQUIRE_REAL=1.
set -u
# The suite's long pole: alone on an idle 2-CPU machine it takes about a
# minute, among the other tests, which share the CPUs, three times as long,
# and the suite ends when it does. It goes ahead of them (nice -5: about
# three times the CPU share of a test at nice 0 while it has work; its
# dockerds, agents and the nodes' shims inherit it), so that it ends about
# when the rest of the suite does.
renice -n -5 -p $$ > /dev/null 2>&1 || echo "swarm: cannot raise this test's priority (renice); it runs at the others' priority"

. "$(dirname "$0")/agent_lib.sh"
. "$(dirname "$0")/swarm_nodes.sh"
SRC=${MAI_SOURCE_ROOT:?MAI_SOURCE_ROOT must name the source tree}

on_exit() {
	[ -n "${SW_USER:-}" ] && userdel "$SW_USER"
	# A test cut short (its timeout): the examples' script and its 'mai-agent
	# submit's wait in the foreground, and would leave their agent running;
	# every agent of this test has its log under $T.
	if [ -n "${EX_PID:-}" ]; then
		for p in $(ps -o pid= --ppid "$EX_PID"); do
			kill -TERM "$p" 2>/dev/null
		done
		kill -TERM "$EX_PID" 2>/dev/null
	fi
	kill_agents
	[ -n "${EX_PID:-}" ] && wait "$EX_PID" 2>/dev/null
	if [ -n "${KILL9_PID:-}" ]; then
		kill -TERM "$KILL9_PID" 2>/dev/null
		kpid=$(cat "$T/kill9/agent.pid" 2>/dev/null)
		[ -n "$kpid" ] && kill -TERM "$kpid" 2>/dev/null
		wait "$KILL9_PID" 2>/dev/null
	fi
	[ -n "${HOSTILE_PID:-}" ] && kill -TERM "$HOSTILE_PID" 2>/dev/null && wait "$HOSTILE_PID" 2>/dev/null
	# (late.py's frozen shim goes with node 1, by swarm_down)
	[ -n "${LATE_PID:-}" ] && kill -TERM "$LATE_PID" 2>/dev/null && wait "$LATE_PID" 2>/dev/null
	[ -n "${WEB_PID:-}" ] && kill -TERM "$WEB_PID" 2>/dev/null && wait "$WEB_PID" 2>/dev/null
	if [ -n "${REMOTE_PID:-}" ]; then
		kill -TERM "$REMOTE_PID" 2>/dev/null
		# The remote check's agent (its subshell's child) when it broke off.
		rpid=$(cat "$T/remote/agent.pid" 2>/dev/null)
		[ -n "$rpid" ] && kill -TERM "$rpid" 2>/dev/null
		wait "$REMOTE_PID" 2>/dev/null
	fi
	# (again: a subshell cut short may have started one since)
	kill_agents
	swarm_down
}

kill_agents() {
	for p in $(ps -eo pid=,args= | awk -v a="$AGENT run --log-file $T/" 'index($0, a) { print $1 }'); do
		[ "$p" != "${PID:-}" ] && kill -TERM "$p" 2>/dev/null
	done
}

[ "$(id -u)" = 0 ] || skip "a swarm of private dockerds needs root"
for c in ip nsenter unshare dockerd docker flock runsc openssl; do
	command -v "$c" > /dev/null || skip "$c is not installed"
done
[ -s "$("$SRC/packaging/sandbox-image/build.sh" --print-cache)" ] ||
	skip "no cached sandbox root filesystem: run packaging/sandbox-image/build.sh once"
[ -s "$("$SRC/packaging/sandbox-image/build.sh" --variant pip --print-cache)" ] ||
	skip "no cached pip sandbox root filesystem: run packaging/sandbox-image/build.sh --variant pip once"
[ -s "$("$SRC/packaging/sandbox-image/build.sh" --variant proxy --print-cache)" ] ||
	skip "no cached proxy root filesystem: run packaging/sandbox-image/build.sh --variant proxy once"

# uid_quarter N: this test's uid range (agent_start.sh: 1024 uids from
# $_uid_first) cut to its quarter N (0-3) in AGENT_SANDBOX_YAML. Each of
# this test's agents on the swarm's nodes gets its own: two agents handing
# out the same uids would run two scripts as one uid on one node.
uid_quarter() {
	_q=$((_uid_first + $1 * 256))
	AGENT_SANDBOX_YAML=$(printf '%s' "$AGENT_SANDBOX_YAML" |
		sed "s/^uid_range: .*/uid_range: $_q-$((_q + 255))/")
	AGENT_SANDBOX_YAML="$AGENT_SANDBOX_YAML
"
}

t0=$(date +%s%N)
# phase NAME: how long the test has run, for keeping it lean.
phase() { echo "$1 at $((($(date +%s%N) - t0) / 1000000)) ms"; }
if ! swarm_up; then
	fail "the three-node swarm did not come up"
	for n in 1 2 3; do tail -5 "$SW_RUN/n$n.log" >&2; done
	exit 1
fi
echo "swarm up in $((($(date +%s%N) - t0) / 1000000)) ms"
# The outside of this test's allowlist level: a web server in the client
# namespace on two addresses, .20 (its network.allowed_hosts) and .21 (not
# listed), logging each request and where it came from: a page, and a
# package index with a wheel (wheel_index.py, as network.sh's).
ip -n "$(sw_ns c)" addr add "$SW_NET.21/24" dev eth0 || fail "cannot add $SW_NET.21 to the client namespace"
python3 "$SRC/tests/integration/wheel_index.py" "$T/www" || fail "cannot build the wheel index"
WHEEL_SHA=$(cat "$T/www/wheel.sha256")
printf 'allowed page\n' > "$T/www/page"
cat > "$T/web.py" <<'PY'
import functools, http.server, sys
class Logged(http.server.SimpleHTTPRequestHandler):
    def log_message(self, fmt, *args):
        with open(sys.argv[2], "a") as f:
            f.write("%s %s\n" % (self.client_address[0], fmt % args))
http.server.ThreadingHTTPServer(("0.0.0.0", 8080),
                                functools.partial(Logged, directory=sys.argv[1])).serve_forever()
PY
# (nsenter execs python: $! is the server's pid; without the cache's lock
# on fd 8, which would outlive the test in a server left running.)
nsenter --net="/run/netns/$(sw_ns c)" python3 "$T/web.py" "$T/www" "$T/web.log" \
	> "$T/web.err" 2>&1 8>&- &
WEB_PID=$!
# The examples' agent and the kill -9 check's agent name their levels' nodes
# by labels of their own (engine.node_label): each probes only the nodes of
# the levels it runs (a probe is a whole run: service, network, task).
# The hostile set likewise (mai.ho).
# Spread over the nodes: a node sets up each run's network one at a time,
# which on a loaded machine holds the runs queued on it in 'preparing'.
sw_docker 1 node update --label-add mai.ex=trusted "$SW_NODE_ID1" > /dev/null &&
	sw_docker 1 node update --label-add mai.ex=standard --label-add mai.k9=trusted \
		--label-add mai.ho=trusted "$SW_NODE_ID2" > /dev/null &&
	sw_docker 1 node update --label-add mai.ho=untrusted "$SW_NODE_ID3" > /dev/null ||
	fail "cannot label the nodes for the examples', the kill -9 check's and the hostile set's agents"
# Placement (and a probe) may take minutes on a machine loaded by other
# work: a node sets up the runs' networks one at a time.
ENGINE="engine:
  mode: swarm
  host: unix://$SW_SOCK1
  probe_timeout: 180s"

# --- the examples, by examples_run.sh's own checks, beside the rest ---
# A Swarm run costs a second or two more than a local one (a service, a
# network, a task), and the swarm's nodes share this machine: submit waits
# longer for each answer than examples_run.sh's 90 s.
MAI_ENGINE_YAML="$ENGINE
  node_label: mai.ex" MAI_AGENT_YAML='workers: 4' MAI_SUBMIT_TIMEOUT=240 TMPDIR=$T \
	sh "$SRC/tests/integration/examples_run.sh" > "$T/examples.log" 2>&1 &
EX_PID=$!

# --- the hostile set (tests/integration/hostile/, the C test
# test_hostile.c) through Swarm, beside the rest: the same program and
# expectations as against the local engine, its runs at once on node 2
# (runc) and node 3 (gVisor), named by labels of its own. ---
MAI_TEST_SWARM=1 MAI_TEST_SWARM_LABEL=mai.ho DOCKER_SOCKET=$SW_SOCK1 \
	MAI_SANDBOX_PIP_IMAGE=mai-sandbox-pip:latest \
	"${MAI_BUILD_ROOT:?}/tests/integration/itest_hostile" > "$T/hostile.log" 2>&1 &
HOSTILE_PID=$!

# --- a remote Docker engine (node 1's dockerd on tcp://:2376 with
# --tlsverify) used by an agent in the client namespace: plain TCP is
# refused, a wrong CA fails the handshake with a clear message, and with the
# Docker client's variables (DOCKER_HOST, DOCKER_TLS_VERIFY,
# DOCKER_CERT_PATH) a run completes there, its end and usage from the
# Engine API, and the warm pool lives on that engine. In a subshell, its
# own configuration directory and agent, beside the rest (it uses node 1's
# dockerd as a plain engine, not the swarm); waited for before node 1 is
# frozen. ---
printf '#!/bin/sh\nexec nsenter --net=/run/netns/%s "%s" "$@"\n' "$(sw_ns c)" "$AGENT" > "$T/agent-client"
chmod +x "$T/agent-client"
(
	R=$T/remote
	AGENT=$T/agent-client
	fails=0
	uid_quarter 2
	agent_setup "$R" || exit 1
	# The warm pool on the remote engine is checked below (the tests'
	# agents have none unless asked: agent_start.sh).
	sed -i 's/^pool_size: .*/pool_size: 1/' "$R/conf/sandbox.yaml"
	cp "$R/conf/sandbox.yaml" "$R/sandbox.yaml"
	printf 'engine:\n  host: tcp://%s.11:2376\n' "$SW_NET" >> "$R/conf/sandbox.yaml"
	"$AGENT" status --self-test > "$R/plain.out" 2>&1
	[ $? = 4 ] && grep -q "is TCP without a TLS client certificate.*plain TCP is refused" "$R/plain.out" ||
		fail "plain tcp:// was not refused with its reason: $(cat "$R/plain.out")"
	printf '  tls:\n    ca: %s\n    cert: %s\n    key: %s\n' \
		"$SW_TLS/other-ca.pem" "$SW_TLS/cert.pem" "$SW_TLS/key.pem" >> "$R/conf/sandbox.yaml"
	"$AGENT" status --self-test > "$R/ca.out" 2>&1
	[ $? = 4 ] && grep -q "TLS handshake with Docker at tcp://$SW_NET.11:2376 failed" "$R/ca.out" ||
		fail "a wrong CA did not fail the handshake with its reason: $(cat "$R/ca.out")"
	cp "$R/sandbox.yaml" "$R/conf/sandbox.yaml"
	DOCKER_HOST=tcp://$SW_NET.11:2376 DOCKER_TLS_VERIFY=1 DOCKER_CERT_PATH=$SW_TLS \
		agent_start "$R"
	[ -n "$AGENT_PID" ] || { fail "the agent did not start on the remote engine"; cat "$R/agent.log" >&2; exit 1; }
	echo "$AGENT_PID" > "$R/agent.pid"
	printf 'print("remote")\n' > "$R/drop/remote.py"
	wait_final "$R/drop/remote.result.json" 180
	for kv in state=completed execution.stdout.text=remote execution.engine.name=docker \
		"execution.engine.host=tcp://$SW_NET.11:2376" execution.engine.end_from=engine \
		execution.engine.usage_from=engine_stats; do
		[ "$(field "$R/drop/remote.result.json" "${kv%%=*}")" = "${kv#*=}" ] ||
			fail "remote.py: ${kv%%=*} is '$(field "$R/drop/remote.result.json" "${kv%%=*}")', expected '${kv#*=}'"
	done
	[ "$(field "$R/state/status.json" pool_size)" = 1 ] || fail "remote engine: no warm pool"
	[ "$(sw_docker 1 ps -q --filter "label=mai.instance=$R/state" --filter label=mai.job=pool-trusted | wc -l)" -ge 1 ] ||
		fail "remote engine: no warm container of the agent's on it"
	kill -TERM "$AGENT_PID"
	wait "$AGENT_PID"
	[ "$(sw_docker 1 ps -aq --filter "label=mai.instance=$R/state" | wc -l)" = 0 ] ||
		fail "remote engine: containers left after the agent's stop"
	exit $fails
) > "$T/remote.log" 2>&1 &
REMOTE_PID=$!

# started_on N SINCE [STATE [JOB]]: waits (up to 180 s: a loaded machine) on
# node N's own event stream from SINCE (date +%s, taken before the drop)
# until a container of a job's run (not a probe, not a proxy; of job JOB, a
# script's sha256, when given) of the agent whose state directory is STATE
# (default this test's own, $T/state) starts there, then prints its address
# on the run's network and its container's id; prints nothing when none
# came. With STOP_SHIM=1 it first stops (SIGSTOP) the container's shim (the
# parent of its init, which reaps it and tells containerd of its end), at
# once, and prints the shim's pid third. A blocking
# read of the node's events: no polling of the manager, whose every look at
# the tasks costs it milliseconds of CPU.
cat > "$T/started.py" <<'PY'
import http.client, json, os, signal, socket, sys, urllib.parse
sock, instance, since = sys.argv[1:4]
job = sys.argv[4] if len(sys.argv) > 4 else None
class Unix(http.client.HTTPConnection):
    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.settimeout(180)
        self.sock.connect(sock)
f = urllib.parse.quote(json.dumps({"type": ["container"], "event": ["start"],
                                   "label": ["mai.instance=" + instance]}))
c = Unix("localhost")
c.request("GET", "/v1.41/events?since=%s&filters=%s" % (since, f))
r = c.getresponse()
try:
    while True:
        line = r.readline()
        if not line:
            break
        ev = json.loads(line)
        attrs = ev["Actor"]["Attributes"]
        if attrs.get("mai.job") == "probe" or attrs.get("mai.role") == "proxy" or \
                (job and attrs.get("mai.job") != job):
            continue
        i = Unix("localhost")
        i.request("GET", "/v1.41/containers/%s/json" % ev["Actor"]["ID"])
        c = json.loads(i.getresponse().read())
        shim = ""
        if os.environ.get("STOP_SHIM") == "1":
            with open("/proc/%d/stat" % c["State"]["Pid"]) as f:
                shim = f.read().rsplit(")", 1)[1].split()[1]
            os.kill(int(shim), signal.SIGSTOP)
        nets = c["NetworkSettings"]["Networks"] or {}
        print(next((n["IPAddress"] for n in nets.values() if n.get("IPAddress")), "none"),
              ev["Actor"]["ID"], shim)
        break
except socket.timeout:
    pass
PY
started_on() {
	python3 "$T/started.py" "$SW_RUN/n$1.sock" "${3:-$T/state}" "$2" ${4:+"$4"}
}

# live_networks FILTER: how many networks the manager lists for FILTER that
# the swarm still has. A node keeps its own copy of a network the swarm has
# deleted while a task's container there is not yet removed (the manager
# lists it; forever when the node is down); its removal is answered "not
# found". A removal that works (or fails otherwise) was of a network still
# there: it is counted (and gone).
live_networks() {
	sw_docker 1 network ls -q --filter "$1" | while read -r id; do
		out=$(sw_docker 1 network rm "$id" 2>&1) && echo "$id" && continue
		case "$out" in *"not found"*) ;; *) echo "$id" ;; esac
	done | wc -l
}

# none_left FILTER WHAT: fails (naming WHAT) for every service, config and
# live network (live_networks) of FILTER the swarm still has.
none_left() {
	for kind in service config; do
		left=$(sw_docker 1 "$kind" ls -q --filter "$1" | wc -l)
		[ "$left" = 0 ] || fail "$left ${kind}(s) $2"
	done
	left=$(live_networks "$1")
	[ "$left" = 0 ] || fail "$left network(s) $2"
}

# --- an agent of its own (beside the rest: its own instance, and node 2 as
# its trusted node, by its own label) killed with SIGKILL while a burst
# of its runs is on node 2; the next start sweeps what the killed one left
# in the swarm (its services, configs and networks are named after its
# pid), records the runs it had in flight as interrupted and runs them
# again: each script answered once, and no run started on a node without
# its own execution record (the nodes' container start events, by the job
# label the task's container carries, against the audit log); after its
# stop nothing of its instance is left. ---
(
	K=$T/kill9
	fails=0
	uid_quarter 1
	MAI_ENGINE_YAML="$ENGINE
  node_label: mai.k9" MAI_AGENT_YAML='workers: 4' agent_setup "$K" || exit 1
	agent_start "$K"
	[ -n "$AGENT_PID" ] || { fail "the kill -9 check's agent did not start"; cat "$K/agent.log" >&2; exit 1; }
	echo "$AGENT_PID" > "$K/agent.pid"
	k0=$(date +%s)
	for i in 1 2; do
		printf 'import time\ntime.sleep(4)\nprint("kill %d")\n' "$i" > "$K/drop/.k$i"
		mv "$K/drop/.k$i" "$K/drop/kill$i.py"
	done
	[ -n "$(started_on 2 "$k0" "$K/state")" ] ||
		fail "kill -9: no run of the burst started on node 2"
	old_tag=mai-$(printf '%s' "$K/state" | sha256sum | cut -c1-8)-$AGENT_PID-
	kill -KILL "$AGENT_PID"
	wait "$AGENT_PID" 2>/dev/null
	agent_start "$K"
	[ -n "$AGENT_PID" ] || { fail "the agent did not start again after kill -9"; cat "$K/agent.log" >&2; exit 1; }
	echo "$AGENT_PID" > "$K/agent.pid"
	none_left "name=$old_tag" "of the killed agent left after the next start's sweep (kill -9)"
	for i in 1 2; do
		wait_field "$K/drop/kill$i.result.json" state completed 240 > /dev/null
		[ "$(field "$K/drop/kill$i.result.json" execution.stdout.text)" = "kill $i" ] ||
			fail "kill$i.py: $(field "$K/drop/kill$i.result.json" execution.stdout.text)"
	done
	# The nodes' container starts of each job (mai.job is the script's sha256).
	for n in 1 2 3; do
		sw_docker "$n" events --since "$k0" --until "$(date +%s)" --filter type=container \
			--filter event=start --filter "label=mai.instance=$K/state" \
			--format '{{index .Actor.Attributes "mai.job"}}'
	done > "$K/starts"
	for i in 1 2; do
		printf 'kill%d.py %s\n' "$i" "$(sha256sum < "$K/drop/kill$i.py" | cut -d' ' -f1)"
	done > "$K/jobs"
	python3 - "$K/state/audit" "$K/jobs" "$K/starts" > "$K/counts" <<'PY'
import glob, json, sys
sha = dict(l.split() for l in open(sys.argv[2]))
starts = [l.strip() for l in open(sys.argv[3]) if l.strip()]
jobs, recs = {}, {f: [] for f in sha}
for seg in sorted(glob.glob(sys.argv[1] + "/seg-*.log")):
    for line in open(seg):
        rec = json.loads(line.split(" ", 4)[4])
        f = rec.get("fields", {})
        if rec.get("type") == "job_accepted" and f.get("file") in sha:
            jobs[rec["seq"]] = f["file"]
        elif rec.get("type") == "execution" and f.get("job") in jobs:
            recs[jobs[f["job"]]].append(f.get("verdict"))
bad = [f for f in sha if starts.count(sha[f]) > len(recs[f]) or
       sum(v != "interrupted" for v in recs[f]) != 1]
print(len(sha), sum(map(len, recs.values())), sum(v == "interrupted" for r in recs.values() for v in r),
      sum(starts.count(s) for s in sha.values()), " ".join(bad) or "-")
PY
	read -r kjobs kexecs kint kstarts kbad < "$K/counts"
	echo "kill -9: $kjobs scripts, $kexecs execution records ($kint interrupted), $kstarts runs started on the nodes"
	[ "$kbad" = - ] || fail "kill -9: not answered once, or started more often than recorded: $kbad ($(wc -l < "$K/starts") starts)"
	[ "$kint" -ge 1 ] || fail "kill -9: no run was in flight at the kill (no interrupted record)"
	kill -TERM "$AGENT_PID"
	wait "$AGENT_PID"
	none_left "label=mai.instance=$K/state" "left after the restarted agent's stop (kill -9)"
	echo "kill -9: nothing of its instance left"
	exit $fails
) > "$T/kill9.log" 2>&1 &
KILL9_PID=$!

phase "this test's own agent"
# --- this test's own agent ---
uid_quarter 0
write_agent_config "$T/drop" "$T/state" "workers: 8"
printf '%s\n' "$ENGINE" >> "$T/conf/sandbox.yaml"
cat >> "$T/conf/sandbox.yaml" <<'YAML'
trusted:
  scale: false
  timeout: 30s
standard:
  timeout: 400s
  network: allowlist
untrusted:
  timeout: 20s
YAML
printf 'network:\n  allowed_hosts: [%s.20]\n  index_url: http://%s.20:8080/simple\n  image: %s\n' \
	"$SW_NET" "$SW_NET" "${MAI_SANDBOX_PIP_IMAGE:-mai-sandbox-pip:latest}" >> "$T/conf/sandbox.yaml"
# The isolation scripts below open sockets to literal addresses, which the
# assessor holds (HIGH) for a person; here they must run as MEDIUM
# (standard, on the runc node), not untrusted under gVisor, which has no
# network at all.
printf 'allow_self_approval: true\nthresholds:\n  high: 1000\n  blocked: 2000\n' >> "$T/conf/security.yaml"
DOCKER_CHECKED=1
start_agent

# status_until JSON PATTERN: 'mai-agent status' until a line matches (up
# to 20 s: status.json is written at the loop's next turn), asked once
# status.json has the text JSON (a grep, where each 'mai-agent status' is
# a start of the sanitizer build).
status_until() {
	i=0
	until grep -q "$1" "$T/state/status.json" 2>/dev/null || [ $i -ge 200 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	until "$AGENT" status > "$T/status" 2>&1; grep -q "$2" "$T/status" || [ $i -ge 200 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}

# Every node proved its settings before any run.
status_until maisw-n3 '^node maisw-n3'
[ "$(field "$T/state/status.json" engine.name)" = swarm ] || fail "status.json: engine is not swarm"
for n in 0 1 2; do
	[ "$(field "$T/state/status.json" "engine.nodes.$n.probe")" = ok ] ||
		fail "node $n: its probe did not pass: $(field "$T/state/status.json" "engine.nodes.$n.why")"
done
[ "$(grep -c '^node maisw-n[123] (.*): used, probe passed$' "$T/status")" = 3 ] ||
	fail "mai-agent status does not show three proven nodes: $(cat "$T/status")"
grep -q '^network allowlist: through a proxy service of each run' "$T/status" ||
	fail "mai-agent status does not say where the allowlist's proxy runs: $(cat "$T/status")"
grep -h '"type":"engine_nodes"' "$T/state/audit/"seg-*.log | grep -q '"probe":"ok"' ||
	fail "the audit log has no engine_nodes record with the probes"
# Each probe ran as a uid (and gid) of its own from this agent's uid_range
# (uid_quarter 0: 256 uids from $_uid_first): the three ran at once, so
# three different ones.
uids=$(grep -h '"type":"engine_nodes"' "$T/state/audit/"seg-*.log | head -n 1 |
	grep -o 'run_uid [0-9]* [0-9]*' | sort -u)
[ "$(printf '%s\n' "$uids" | awk -v lo="$_uid_first" -v hi="$((_uid_first + 255))" \
	'$2 == $3 && $2 >= lo && $2 <= hi' | wc -l)" = 3 ] ||
	fail "the probes did not run as three uids of the range $_uid_first-$((_uid_first + 255)): $uids"

phase "runs"
# --- at once: a run that starts more threads than its level's pids (128),
# which must end at the pids limit as locally, and names its node (trusted:
# node 1); and one that listens on its own network (standard: the runc
# node) until the agent stops. (The output cap on Swarm is the examples'
# output_flood.py: through Swarm it must end output_limit, not at its
# 10 s deadline.) ---
r0=$(date +%s)
cat > "$T/drop/threads.py" <<'PY'
import threading, time
for i in range(200):
    try:
        threading.Thread(target=time.sleep, args=(3,)).start()
    except RuntimeError:
        print("refused at", i)
        break
PY
cat > "$T/drop/listener.py" <<'PY'
import socket
s = socket.socket()
s.bind(("0.0.0.0", 8080))
s.listen()
s.settimeout(390)
try:
    s.accept()
    print("ACCEPTED")
except OSError:
    print("nobody came")
PY
# --- and a run whose node reports its end late: its container's shim on
# node 1 (which reaps it and tells containerd) frozen from its start until
# 5 s after its level's 30 s limit, as a node too busy to report would;
# the script ends after 20 s (room for the test to stop the shim on a
# loaded machine: 8 s once when it was a shell's pgrep away). The time limit is its node's (the task's
# supervisor), so the answer is its own exit, not a timeout the manager's
# late view would suggest. ---
printf 'import sys, time\ntime.sleep(20)\nsys.exit(3)\n' > "$T/drop/.late"
mv "$T/drop/.late" "$T/drop/late.py"
(
	job=$(sha256sum < "$T/drop/late.py" | cut -d' ' -f1)
	set -- $(STOP_SHIM=1 started_on 1 "$r0" "$T/state" "$job")
	t_start=$(date +%s)
	shim=${3:-}
	if [ -z "$shim" ]; then
		echo "FAIL: late.py: its run's container or shim was not found on node 1 (its start event: '$*'; node 1's containers of it: $(sw_docker 1 ps -a --filter "label=mai.job=$job" --format '{{.ID}} {{.Status}}' | tr '\n' ' '))"
		exit 1
	fi
	# The container's init (the supervisor) has not ended: else the
	# freeze came too late (its end may have been reported already) and
	# the check proves nothing.
	init=$(pgrep -P "$shim" | head -n 1)
	if [ -z "$init" ] || [ "$(cut -d' ' -f3 "/proc/$init/stat" 2>/dev/null)" = Z ]; then
		kill -CONT "$shim"
		echo "FAIL: late.py had ended before its shim was frozen ($(($(date +%s) - t_start)) s after its start event): the check proves nothing"
		exit 1
	fi
	sleep $((t_start + 35 - $(date +%s)))
	kill -CONT "$shim"
) > "$T/late.log" 2>&1 &
LATE_PID=$!
# The listener's address on its own network, once its task runs.
ljob=$(sha256sum < "$T/drop/listener.py" | cut -d' ' -f1)
addr=$(started_on 2 "$r0" "$T/state" "$ljob" | cut -d' ' -f1)
[ -n "$addr" ] || fail "listener.py: its task's address was not found"
# Its filtering proxy (standard is network: allowlist), running before the
# listener started: its addresses on the listener's network and on the
# egress network, which another run must not reach.
# (A job's task is desired "complete", not "running".)
psvc=$(sw_docker 1 service ls -q --filter label=mai.role=proxy --filter "label=mai.instance=$T/state" \
	--filter "label=mai.job=$ljob" | head -n 1)
ptask=$(sw_docker 1 service ps -q "$psvc" | head -n 1)
paddrs=$(sw_docker 1 inspect --type task --format '{{range .NetworksAttachments}}{{range .Addresses}}{{.}} {{end}}{{end}}' "$ptask" | sed 's|/[0-9]*||g')
[ "$(echo $paddrs | wc -w)" = 2 ] || fail "listener.py's proxy is not on two networks: '$paddrs'"
# --- isolation: while it listens, another run on the same node tries it,
# the nodes' addresses and the outside ---
# and, its level being network: allowlist, the listed host without its
# proxy, the listener's proxy, and through its own proxy what is not
# listed (a name, an IP literal, a CONNECT tunnel, the other proxy); its
# PEP 723 dependency is installed by pip through its proxy from the index
# on the listed host ---
phase "the listener runs"
cat > "$T/drop/prober.py" <<PY
# /// script
# dependencies = ["maipkg-hello==1.0"]
# ///
import http.client, os, socket, threading, urllib.error, urllib.parse, urllib.request
import maipkg_hello
print(maipkg_hello.GREETING)
others = "$paddrs".split()
# Each address at once (a blocked one waits out its 2 s), printed in order.
targets = [("$addr", 8080), ("$SW_NET.11", 2377), ("$SW_NET.12", 7946), ("1.1.1.1", 53),
           ("$SW_NET.20", 8080)] + [(a, 3128) for a in others]
seen = [None] * len(targets)
def attempt(i, host, port):
    try:
        socket.create_connection((host, port), timeout=2).close()
        seen[i] = "reached %s %d" % (host, port)
    except OSError as e:
        seen[i] = "blocked %s %d %s" % (host, port, type(e).__name__)
threads = [threading.Thread(target=attempt, args=(i, h, p)) for i, (h, p) in enumerate(targets)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print("\n".join(seen))
proxy = os.environ.get("HTTP_PROXY", "none")
print("proxy", proxy)
def via(url):
    try:
        return "fetched " + urllib.request.urlopen(url, timeout=30).read().decode().strip()
    except urllib.error.HTTPError as e:
        return "refused %d" % e.code
    except OSError as e:
        return "error " + type(e).__name__
print("allowed:", via("http://$SW_NET.20:8080/page"))
print("name:", via("http://denied.invalid:8080/name"))
print("literal:", via("http://$SW_NET.21:8080/literal"))
for a in others:
    print("other proxy:", via("http://%s:3128/" % a))
u = urllib.parse.urlsplit(proxy)
c = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
c.set_tunnel("$SW_NET.21", 443)
try:
    c.connect()
    print("connect: opened")
except OSError as e:
    print("connect: refused", e)
PY
wait_final "$T/drop/prober.result.json" 180
phase "prober.py answered"
[ "$(field "$T/drop/listener.result.json" state)" = running ] ||
	fail "listener.py ended before prober.py did: the check proves nothing"
out=$(field "$T/drop/prober.result.json" execution.stdout.text)
[ "$(printf '%s\n' "$out" | grep -c '^blocked ')" = 7 ] ||
	fail "prober.py reached what it must not (listener at $addr, its proxy at $paddrs): $out"
# Through its proxy: the listed host only; the rest refused by the proxy's
# filter (403), never reached.
for want in '^hello from a wheel$' "^proxy http://mai-.*-proxy:3128\$" '^allowed: fetched allowed page$' '^name: refused 403$' \
	'^literal: refused 403$' '^connect: refused .*403'; do
	printf '%s\n' "$out" | grep -q "$want" || fail "prober.py: no line '$want': $out"
done
[ "$(printf '%s\n' "$out" | grep -c '^other proxy: refused 403$')" = 2 ] ||
	fail "prober.py: the listener's proxy was not refused twice: $out"
grep -q "^$SW_NET\.1[123] \"GET /page " "$T/web.log" && [ "$(grep -c ' "GET /page ' "$T/web.log")" = 1 ] ||
	fail "the web server saw other than one fetch of /page from a node (through the proxy): $(cat "$T/web.log")"
grep -E ' "(GET|CONNECT) /?(name|literal)|:443' "$T/web.log" &&
	fail "a request the proxy refused reached the web server"
# The proxy's decisions, in the agent's proxy log (its own only), as
# locally: the refused name, after the run's name.
grep -q "^mai-.*: .*denied\.invalid" "$T/state/proxy/tinyproxy.log" ||
	fail "the proxy log has no refusal of denied.invalid: $(tail -5 "$T/state/proxy/tinyproxy.log" 2>&1)"
[ "$(stat -c %a "$T/state/proxy/tinyproxy.log")" = 600 ] ||
	fail "the proxy log is $(stat -c %a "$T/state/proxy/tinyproxy.log"), not 600"
# Its dependency came through the proxy.
[ "$(field "$T/drop/prober.result.json" execution.dependencies.installed.0.hashes.sha256)" = "$WHEEL_SHA" ] ||
	fail "prober.py: the installed wheel's sha256 is not recorded"
grep -q "^$SW_NET\.1[123] \"GET /files/maipkg_hello-1.0-py3-none-any.whl " "$T/web.log" ||
	fail "the index saw no fetch of the wheel from a node: $(cat "$T/web.log")"
[ "$(field "$T/drop/prober.result.json" execution.engine.node)" = maisw-n2 ] ||
	fail "prober.py: node '$(field "$T/drop/prober.result.json" execution.engine.node)', expected maisw-n2 (the standard node)"
wait "$LATE_PID" || fail "$(cat "$T/late.log")"
LATE_PID=
wait_final "$T/drop/late.result.json" 180
[ "$(field "$T/drop/late.result.json" verdict)/$(field "$T/drop/late.result.json" execution.exit_code)" = exited/3 ] ||
	fail "late.py (its end reported 15 s late): verdict '$(field "$T/drop/late.result.json" verdict)', exit code '$(field "$T/drop/late.result.json" execution.exit_code)'; expected exited, 3"
wait_final "$T/drop/threads.result.json" 180
[ "$(field "$T/drop/threads.result.json" execution.engine.node)" = maisw-n1 ] ||
	fail "threads.py: node '$(field "$T/drop/threads.result.json" execution.engine.node)', expected maisw-n1 (the trusted node)"
[ "$(field "$T/drop/threads.result.json" execution.engine.usage_from)" = task ] ||
	fail "threads.py: usage_from is not task"
[ "$(field "$T/drop/threads.result.json" verdict)" = pids_limit ] ||
	fail "threads.py: verdict '$(field "$T/drop/threads.result.json" verdict)', expected pids_limit"

phase "a node whose probe fails"
# --- (beside the examples, the kill -9 check and the hostile set, whose
# agents name their nodes by labels of their own) a runc node labelled
# untrusted fails its probe and is not used, and 'mai-agent
# status' says why; an overridden BLOCKED script runs untrusted on the gVisor
# node. The running agent sees the new label when it next places a run.
# Meanwhile an account of the nodes (this machine's /etc, which the nodes
# share) has a uid of this agent's range: node 2's probe says so too (node
# 3 was proven before it came; the other agents' ranges are not this one). ---
SW_USER=maisw$$
useradd -M -N -l -s /usr/sbin/nologin -u "$((_uid_first + 255))" "$SW_USER" ||
	fail "cannot add the account $SW_USER"
sw_docker 1 node update --label-add mai.trust=untrusted "$SW_NODE_ID2" > /dev/null ||
	fail "cannot relabel node 2"
printf 'import os, base64\nexec(base64.b64decode("cHJpbnQob3MudW5hbWUoKS5yZWxlYXNlKQ=="))\n' > "$T/drop/blocked.py"
wait_field "$T/drop/blocked.result.json" state blocked 90
printf 'the test lets it run untrusted\n' > "$T/drop/blocked.override"
wait_field "$T/drop/blocked.result.json" state completed 240
[ "$(field "$T/drop/blocked.result.json" execution.engine.node)" = maisw-n3 ] ||
	fail "blocked.py: node '$(field "$T/drop/blocked.result.json" execution.engine.node)', expected maisw-n3 (the gVisor node)"
[ "$(field "$T/drop/blocked.result.json" execution.stdout.text)" = "4.4.0" ] ||
	fail "blocked.py: gVisor's kernel did not answer: $(field "$T/drop/blocked.result.json" execution.stdout.text)"
status_until gvisor_kernel '^node maisw-n2 (untrusted, ready): not used'
# The new round of probes is in the audit log too.
grep -h '"type":"engine_nodes"' "$T/state/audit/"seg-*.log | grep -q 'gvisor_kernel the kernel' ||
	fail "the audit log has no engine_nodes record of node 2's failed probe"
grep -q "^node maisw-n2 (untrusted, ready): not used: uid_range account $SW_USER has uid $((_uid_first + 255)) in the sandbox's uid_range $_uid_first-$((_uid_first + 255)) on the node .*; gvisor_kernel the kernel .* answers, not gVisor" "$T/status" ||
	fail "mai-agent status does not say why node 2 is not used: $(grep '^node' "$T/status")"
userdel "$SW_USER" && SW_USER=
# (listener.py waits on; the agent's stop ends it.)

phase "waiting for the examples"
wait "$EX_PID"
rc=$?
EX_PID=
[ $rc = 0 ] || { fail "the examples through Swarm (examples_run.sh) failed"; cat "$T/examples.log" >&2; }
grep '^ok' "$T/examples.log"
wait "$REMOTE_PID"
rc=$?
REMOTE_PID=
[ $rc = 0 ] || { fail "the remote engine checks failed"; cat "$T/remote.log" >&2; }
wait "$KILL9_PID"
rc=$?
KILL9_PID=
grep '^kill -9' "$T/kill9.log"
[ $rc = 0 ] || { fail "the kill -9 checks failed"; cat "$T/kill9.log" >&2; }
wait "$HOSTILE_PID"
rc=$?
HOSTILE_PID=
grep -E '^\[ +(OK|PASSED|FAILED) +\]' "$T/hostile.log"
[ $rc = 0 ] || { fail "the hostile set through Swarm (test_hostile.c) failed"; cat "$T/hostile.log" >&2; }

phase "a worker killed mid-burst, the manager unreachable"
# --- node 2 serves the trusted level too; a burst of runs spreads over
# nodes 1 and 2, and node 2's dockerd and containerd are killed (SIGKILL)
# while runs are on it: those runs are lost, answered "error" and run again
# on node 1; then the manager is unreachable for 10 s; every script is
# answered exactly once, with one execution record each. ---
sw_docker 1 node update --label-add mai.trust=trusted "$SW_NODE_ID2" > /dev/null ||
	fail "cannot relabel node 2"
sw_fast_heartbeat || fail "cannot shorten the swarm's heartbeat"
b0=$(date +%s)
for i in 1 2 3; do
	printf 'import time\ntime.sleep(3)\nprint("burst %d")\n' "$i" > "$T/drop/.b$i"
	mv "$T/drop/.b$i" "$T/drop/burst$i.py"
done
[ -n "$(started_on 2 "$b0")" ] || fail "no run of the burst went to node 2"
sw_node_stop 2 KILL
# And the manager unreachable for 10 s (its dockerd frozen) while the other
# runs go on on node 1: they are answered once, with their output.
kill -STOP "$(cat "$SW_RUN/n1.pid")"
sleep 10
kill -CONT "$(cat "$SW_RUN/n1.pid")"
for i in 1 2 3; do
	wait_field "$T/drop/burst$i.result.json" state completed 240
	[ "$(field "$T/drop/burst$i.result.json" execution.stdout.text)" = "burst $i" ] ||
		fail "burst$i.py: $(field "$T/drop/burst$i.result.json" execution.stdout.text)"
	[ "$(field "$T/drop/burst$i.result.json" execution.engine.node)" = maisw-n1 ] ||
		fail "burst$i.py ran on $(field "$T/drop/burst$i.result.json" execution.engine.node) after node 2 died"
done
python3 - "$T/state/audit" > "$T/burst.counts" <<'PY'
import glob, json, sys
runs, retries = {}, 0
jobs = {}
for seg in sorted(glob.glob(sys.argv[1] + "/seg-*.log")):
    for line in open(seg):
        rec = json.loads(line.split(" ", 4)[4])
        f = rec.get("fields", {})
        if rec.get("type") == "job_accepted" and f.get("file", "").startswith("burst"):
            jobs[rec["seq"]] = f["file"]
        elif rec.get("type") == "execution" and f.get("job") in jobs:
            runs[jobs[f["job"]]] = runs.get(jobs[f["job"]], 0) + 1
        elif rec.get("type") == "retry" and f.get("job") in jobs and "went down" in json.dumps(f):
            retries += 1
print(len(jobs), sum(runs.values()), max(runs.values() or [0]), retries)
PY
read -r jobs execs most lost < "$T/burst.counts"
echo "burst: $jobs scripts, $execs execution records (at most $most per job), $lost runs lost with node 2 and run again"
[ "$execs" = 3 ] && [ "$most" = 1 ] || fail "burst: $execs execution records for 3 scripts (at most $most for one)"
[ "$lost" -ge 1 ] || fail "burst: no run was recorded lost with node 2 (retry records)"

phase "nothing of the agent's is left"
# --- nothing of the agent's is left in the swarm after its stop ---
stop_agent
# A lost run's network stays listed while its task is on the dead node,
# but the swarm is deleting it (live_networks): none may be left.
none_left "label=mai.instance=$T/state" "of the agent left in the swarm after its stop ($lost runs lost with node 2)"

# --- and no run's task outlived its service on a node (a run stopped at its
# deadline or cap, as the examples' timeout_sleep.py and output_flood.py
# are: removing a replicated-job service leaves its task's container
# running, unless the agent stops the task first) ---
for n in 1 3; do
	left=$(sw_docker "$n" ps -q --filter label=mai.agent=1 | wc -l)
	[ "$left" = 0 ] || fail "node $n: $left container(s) of runs still running after their agents stopped: $(sw_docker "$n" ps --filter label=mai.agent=1 --format '{{.Names}} {{.Status}}' | tr '\n' ' ')"
done

echo "swarm checks done in $((($(date +%s%N) - t0) / 1000000)) ms (before the swarm's teardown)"
lib_finish swarm
