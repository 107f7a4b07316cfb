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
#  - a run reaches neither another run (listening at the same time on the
#    same node), nor a node's address, nor the outside;
#  - a node whose probe fails (a runc node labelled untrusted) is not used,
#    and 'mai-agent status' says why; an overridden BLOCKED script runs
#    untrusted on the gVisor node;
#  - a remote Docker engine over mutual TLS (node 1's dockerd on TCP, the
#    agent in a namespace of its own): plain TCP refused, a wrong CA
#    refused, DOCKER_HOST/DOCKER_TLS_VERIFY/DOCKER_CERT_PATH honoured, the
#    end and usage from the Engine API, the warm pool on that engine;
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

. "$(dirname "$0")/agent_lib.sh"
. "$(dirname "$0")/swarm_nodes.sh"
SRC=${MAI_SOURCE_ROOT:?MAI_SOURCE_ROOT must name the source tree}

on_exit() {
	[ -n "${EX_PID:-}" ] && kill -TERM "$EX_PID" 2>/dev/null && wait "$EX_PID" 2>/dev/null
	swarm_down
}

[ "$(id -u)" = 0 ] || skip "a swarm of private dockerds needs root"
for c in ip nsenter unshare dockerd docker flock runsc openssl; do
	command -v "$c" > /dev/null || skip "$c is not installed"
done
[ -s "$("$SRC/packaging/sandbox-image/build.sh" --print-cache)" ] ||
	skip "no cached sandbox root filesystem: run packaging/sandbox-image/build.sh once"

t0=$(date +%s%N)
# phase NAME: how long the test has run, for keeping it lean.
phase() { echo "$1 at $((($(date +%s%N) - t0) / 1000000)) ms"; }
if ! swarm_up; then
	fail "the three-node swarm did not come up"
	for n in 1 2 3; do tail -5 "$SW_RUN/n$n.log" >&2; done
	exit 1
fi
echo "swarm up in $((($(date +%s%N) - t0) / 1000000)) ms"
ENGINE="engine:
  mode: swarm
  host: unix://$SW_SOCK1"

# --- the examples, by examples_run.sh's own checks, beside the rest ---
# A Swarm run costs a second or two more than a local one (a service, a
# network, a task), and the swarm's nodes share this machine: submit waits
# longer for each answer than examples_run.sh's 90 s.
MAI_ENGINE_YAML=$ENGINE MAI_SUBMIT_TIMEOUT=240 sh "$SRC/tests/integration/examples_run.sh" \
	> "$T/examples.log" 2>&1 &
EX_PID=$!

phase "this test's own agent"
# --- this test's own agent ---
write_agent_config "$T/drop" "$T/state" "workers: 4"
printf '%s\n' "$ENGINE" >> "$T/conf/sandbox.yaml"
cat >> "$T/conf/sandbox.yaml" <<'YAML'
trusted:
  scale: false
standard:
  timeout: 150s
untrusted:
  timeout: 20s
YAML
# The isolation scripts below open sockets to literal addresses, which the
# assessor holds (HIGH) for a person; here they must run as MEDIUM
# (standard, on the runc node), not untrusted under gVisor, which has no
# network at all.
printf 'allow_self_approval: true\nthresholds:\n  high: 1000\n  blocked: 2000\n' >> "$T/conf/security.yaml"
DOCKER_CHECKED=1
start_agent

# status_until PATTERN: 'mai-agent status' until a line matches (up to 20
# s: status.json is written at the loop's next turn).
status_until() {
	i=0
	until "$AGENT" status > "$T/status" 2>&1; grep -q "$1" "$T/status" || [ $i -ge 200 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}

# Every node proved its settings before any run.
status_until '^node maisw-n3'
field "$T/state/status.json" engine.name | grep -qx swarm || fail "status.json: engine is not swarm"
for n in 0 1 2; do
	[ "$(field "$T/state/status.json" "engine.nodes.$n.probe")" = ok ] ||
		fail "node $n: its probe did not pass: $(field "$T/state/status.json" "engine.nodes.$n.why")"
done
[ "$(grep -c '^node maisw-n[123] (.*): used, probe passed$' "$T/status")" = 3 ] ||
	fail "mai-agent status does not show three proven nodes: $(cat "$T/status")"
grep -h '"type":"engine_nodes"' "$T/state/audit/"seg-*.log | grep -q '"probe":"ok"' ||
	fail "the audit log has no engine_nodes record with the probes"
# Each probe ran as a uid (and gid) of its own from this test's uid_range
# (agent_start.sh: 1024 uids from $_uid_first): the three ran at once, so
# three different ones.
uids=$(grep -h '"type":"engine_nodes"' "$T/state/audit/"seg-*.log | head -n 1 |
	grep -o 'run_uid [0-9]* [0-9]*' | sort -u)
[ "$(printf '%s\n' "$uids" | awk -v lo="$_uid_first" -v hi="$((_uid_first + 1023))" \
	'$2 == $3 && $2 >= lo && $2 <= hi' | wc -l)" = 3 ] ||
	fail "the probes did not run as three uids of the range $_uid_first-$((_uid_first + 1023)): $uids"

# tasks_on WHAT NODE_ID: waits (up to 180 s: a loaded machine) until a job's run of this
# agent (not a probe) runs on the node, then prints its address on its own
# network (WHAT addr) or how many run there (WHAT count); prints nothing
# (addr) or 0 (count) when none came.
cat > "$T/tasks.py" <<'PY'
import http.client, json, socket, sys, time, urllib.parse
sock, instance, what, node = sys.argv[1:5]
class Unix(http.client.HTTPConnection):
    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.connect(sock)
def get(path):
    c = Unix("localhost", timeout=10)
    c.request("GET", path)
    r = json.loads(c.getresponse().read())
    c.close()
    return r
q = urllib.parse.quote(json.dumps({"label": ["mai.instance=" + instance]}))
end = time.monotonic() + 180
while time.monotonic() < end:
    ids = [s["ID"] for s in get("/v1.41/services?filters=" + q)
           if s["Spec"]["Labels"].get("mai.job") != "probe"]
    tq = urllib.parse.quote(json.dumps({"service": ids, "node": [node]}))
    tasks = [t for t in (get("/v1.41/tasks?filters=" + tq) if ids else [])
             if t["Status"]["State"] == "running"]
    if tasks and what == "count":
        print(len(tasks))
        sys.exit(0)
    for t in tasks:
        for n in t.get("NetworksAttachments") or []:
            for a in n.get("Addresses") or []:
                print(a.split("/")[0])
                sys.exit(0)
    time.sleep(0.1)
print(0 if what == "count" else "")
PY
tasks_on() {
	python3 "$T/tasks.py" "$SW_SOCK1" "$T/state" "$1" "$2"
}

phase "runs"
# --- at once: a run that names its node; one that starts more threads than
# its level's pids (128), which must end at the pids limit as locally; and
# one that listens on its own network (standard: the runc node) until the
# agent stops ---
printf 'print("placed")\n' > "$T/drop/where.py"
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
s.settimeout(120)
try:
    s.accept()
    print("ACCEPTED")
except OSError:
    print("nobody came")
PY
# The listener's address on its own network, once its task runs.
addr=$(tasks_on addr "$SW_NODE_ID2")
[ -n "$addr" ] || fail "listener.py: its task's address was not found"
# --- isolation: while it listens, another run on the same node tries it,
# the nodes' addresses and the outside ---
cat > "$T/drop/prober.py" <<PY
import socket
for host, port in (("$addr", 8080), ("$SW_NET.11", 2377), ("$SW_NET.12", 7946), ("1.1.1.1", 53)):
    try:
        socket.create_connection((host, port), timeout=2).close()
        print("reached", host, port)
    except OSError as e:
        print("blocked", host, port, type(e).__name__)
PY
wait_final "$T/drop/prober.result.json" 180
[ "$(field "$T/drop/listener.result.json" state)" = running ] ||
	fail "listener.py ended before prober.py did: the check proves nothing"
out=$(field "$T/drop/prober.result.json" execution.stdout.text)
[ "$(printf '%s\n' "$out" | grep -c '^blocked ')" = 4 ] ||
	fail "prober.py reached what it must not (listener at $addr): $out"
[ "$(field "$T/drop/prober.result.json" execution.engine.node)" = maisw-n2 ] ||
	fail "prober.py: node '$(field "$T/drop/prober.result.json" execution.engine.node)', expected maisw-n2 (the standard node)"
wait_final "$T/drop/where.result.json" 180
wait_final "$T/drop/threads.result.json" 180
[ "$(field "$T/drop/where.result.json" execution.engine.node)" = maisw-n1 ] ||
	fail "where.py: node '$(field "$T/drop/where.result.json" execution.engine.node)', expected maisw-n1 (the trusted node)"
[ "$(field "$T/drop/where.result.json" execution.engine.usage_from)" = task ] ||
	fail "where.py: usage_from is not task"
[ "$(field "$T/drop/threads.result.json" verdict)" = pids_limit ] ||
	fail "threads.py: verdict '$(field "$T/drop/threads.result.json" verdict)', expected pids_limit"

phase "remote engine"
# --- a remote Docker engine (node 1's dockerd on tcp://:2376 with
# --tlsverify) used by an agent in the client namespace: plain TCP is
# refused, a wrong CA fails the handshake with a clear message, and with the
# Docker client's variables (DOCKER_HOST, DOCKER_TLS_VERIFY,
# DOCKER_CERT_PATH) a run completes there, its end and usage from the
# Engine API, and the warm pool lives on that engine. In a subshell: its
# own configuration directory and agent. ---
printf '#!/bin/sh\nexec nsenter --net=/run/netns/%s "%s" "$@"\n' "$(sw_ns c)" "$AGENT" > "$T/agent-client"
chmod +x "$T/agent-client"
(
	R=$T/remote
	AGENT=$T/agent-client
	fails=0
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
) || fail "the remote engine checks failed (above)"

phase "waiting for the examples"
wait "$EX_PID"
rc=$?
EX_PID=
[ $rc = 0 ] || { fail "the examples through Swarm (examples_run.sh) failed"; cat "$T/examples.log" >&2; }
grep '^ok' "$T/examples.log"

phase "a node whose probe fails"
# --- (the examples' agent is done with the standard node) a runc node
# labelled untrusted fails its probe and is not used, and 'mai-agent
# status' says why; an overridden BLOCKED script runs untrusted on the gVisor
# node. The running agent sees the new label when it next places a run. ---
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
status_until '^node maisw-n2 (untrusted, ready): not used'
# The new round of probes is in the audit log too.
grep -h '"type":"engine_nodes"' "$T/state/audit/"seg-*.log | grep -q 'gvisor_kernel the kernel' ||
	fail "the audit log has no engine_nodes record of node 2's failed probe"
grep -q '^node maisw-n2 (untrusted, ready): not used: gvisor_kernel the kernel .* answers, not gVisor' "$T/status" ||
	fail "mai-agent status does not say why node 2 is not used: $(grep '^node' "$T/status")"
# (listener.py waits on; the agent's stop ends it.)

phase "a worker killed mid-burst, the manager unreachable"
# --- node 2 serves the trusted level too; a burst of runs spreads over
# nodes 1 and 2, and node 2's dockerd and containerd are killed (SIGKILL)
# while runs are on it: those runs are lost, answered "error" and run again
# on node 1; then the manager is unreachable for 10 s; every script is
# answered exactly once, with one execution record each. ---
sw_docker 1 node update --label-add mai.trust=trusted "$SW_NODE_ID2" > /dev/null ||
	fail "cannot relabel node 2"
for i in 1 2 3 4 5 6; do
	printf 'import time\ntime.sleep(4)\nprint("burst %d")\n' "$i" > "$T/drop/.b$i"
	mv "$T/drop/.b$i" "$T/drop/burst$i.py"
done
on_n2=$(tasks_on count "$SW_NODE_ID2")
[ "$on_n2" -gt 0 ] || fail "no run of the burst went to node 2"
sw_node_stop 2 KILL
# And the manager unreachable for 10 s (its dockerd frozen) while the other
# runs go on on node 1: they are answered once, with their output.
kill -STOP "$(cat "$SW_RUN/n1.pid")"
sleep 10
kill -CONT "$(cat "$SW_RUN/n1.pid")"
for i in 1 2 3 4 5 6; do
	wait_field "$T/drop/burst$i.result.json" state completed 240
	field "$T/drop/burst$i.result.json" execution.stdout.text | grep -qx "burst $i" ||
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
[ "$execs" = 6 ] && [ "$most" = 1 ] || fail "burst: $execs execution records for 6 scripts (at most $most for one)"
[ "$lost" -ge 1 ] || fail "burst: no run was recorded lost with node 2 (retry records)"

phase "nothing of the agent's is left"
# --- nothing of the agent's is left in the swarm after its stop ---
stop_agent
for kind in service config; do
	left=$(sw_docker 1 "$kind" ls -q --filter "label=mai.instance=$T/state" | wc -l)
	[ "$left" = 0 ] || fail "$left ${kind}(s) of the agent left in the swarm after its stop"
done
# A lost run's network stays while its task's endpoint is on the dead node
# (Swarm refuses to remove it until node 2 is back or removed); the agent's
# next start sweeps it. Nothing else may stay.
left=$(sw_docker 1 network ls -q --filter "label=mai.instance=$T/state" | wc -l)
[ "$left" -le "${lost:-0}" ] ||
	fail "$left network(s) of the agent left in the swarm after its stop ($lost runs lost with node 2)"

echo "swarm checks done in $((($(date +%s%N) - t0) / 1000000)) ms (before the swarm's teardown)"
lib_finish swarm
