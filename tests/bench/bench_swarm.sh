#!/bin/sh
# The Swarm engine against the local cold path, side by side, on a real
# three-node swarm made on this machine (tests/integration/swarm_nodes.sh,
# here with every node on runc):
#  1. drop-to-result latency of a trivial LOW script, p50 and p95: one agent
#     on the local Docker engine without a warm pool (the cold path) and one
#     on the swarm, drops alternating between the two;
#  2. runs/s of a burst of trivial scripts through the swarm with one node,
#     then three nodes labelled for the level (the agent's workers: 6), the
#     placement spread over the nodes, and the agent's own CPU time per run.
# On one machine the nodes share its CPUs: the figures show what Swarm and
# the agent add per run, not more capacity.
#
#   tests/bench/bench_swarm.sh BUILD_DIR [N] [BURST]
#
# Needs root, Docker and the cached sandbox root filesystem; prints a table.
set -u
BUILD=${1:?usage: bench_swarm.sh BUILD_DIR [N] [BURST]}
N=${2:-20}
BURST=${3:-30}
AGENT="$(cd "$BUILD" && pwd)/agent/mai-agent"
MAI_SOURCE_ROOT=$(cd "$(dirname "$0")/../.." && pwd)
export MAI_SOURCE_ROOT
T=$(mktemp -d "${TMPDIR:-/tmp}/mai-bench-swarm.XXXXXX")
PIDS=
SW_RUNSC_NODE=0
. "$MAI_SOURCE_ROOT/tests/integration/swarm_nodes.sh"
trap 'for p in $PIDS; do kill -TERM "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; swarm_down; rm -rf "$T"' EXIT

swarm_up || { echo "bench_swarm: the swarm did not come up" >&2; exit 1; }

# config DIR [ENGINE-YAML]: an agent's configuration in DIR.
config() {
	mkdir -p "$1/conf" "$1/drop"
	printf 'drop_dir: %s\nstate_dir: %s\nworkers: 6\nsettle_delay: 50ms\n' "$1/drop" "$1/state" > "$1/conf/agent.yaml"
	printf 'analyzers:\n  bandit:\n    enabled: false\n' > "$1/conf/security.yaml"
	printf 'self_test: false\npool_size: 0\n%s\n' "${2:-}" > "$1/conf/sandbox.yaml"
	"$AGENT" keygen "$1/audit.key" > /dev/null 2>&1
	printf 'signing_key: %s\n' "$1/audit.key" > "$1/conf/audit.yaml"
}

# start DIR: the agent of DIR, once its status names it.
start() {
	MAI_CONFIG_DIR="$1/conf" "$AGENT" run --log-file "$1/agent.log" &
	p=$!
	PIDS="$PIDS $p"
	echo "$p" > "$1/pid"
	until grep -q "\"pid\": $p," "$1/state/status.json" 2>/dev/null &&
		grep -q "ready: watching" "$1/agent.log"; do
		sleep 0.1
	done
}

config "$T/local"
config "$T/swarm" "engine:
  mode: swarm
  host: unix://$SW_SOCK1"
start "$T/local"
start "$T/swarm"

python3 - "$T" "$N" "$BURST" "$SW_SOCK1" "$SW_NODE_ID2" "$SW_NODE_ID3" <<'PY'
import json, os, statistics, subprocess, sys, time
T, N, BURST = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
sock, node2, node3 = sys.argv[4], sys.argv[5], sys.argv[6]

def final(path):
    try:
        with open(path) as f:
            r = json.load(f)
    except (OSError, ValueError):
        return None
    return r if r.get("state") in ("completed", "rejected", "blocked", "awaiting_confirmation") else None

def drop(d, name, text):
    tmp = os.path.join(d, "drop", "." + name + ".tmp")
    with open(tmp, "w") as f:
        f.write(text)
    os.rename(tmp, os.path.join(d, "drop", name + ".py"))

def wait(d, name, limit=300):
    path = os.path.join(d, "drop", name + ".result.json")
    end = time.monotonic() + limit
    while time.monotonic() < end:
        r = final(path)
        if r:
            return r
        time.sleep(0.005)
    raise SystemExit("no result for " + path)

def cpu(d):
    pid = open(os.path.join(d, "pid")).read().strip()
    f = open("/proc/%s/stat" % pid).read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")

def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(round(p / 100 * (len(v) - 1))))]

lat = {"local": [], "swarm": []}
for i in range(N):
    for which in ("local", "swarm"):
        d = os.path.join(T, which)
        t0 = time.monotonic()
        drop(d, "l%d" % i, "print(%d)\n" % i)
        r = wait(d, "l%d" % i)
        lat[which].append((time.monotonic() - t0) * 1000)
        assert r["state"] == "completed", r
print("drop-to-result, trivial LOW script, %d drops each, one at a time" % N)
print("%-24s %8s %8s" % ("engine", "p50 ms", "p95 ms"))
for which, label in (("local", "local Docker, cold"), ("swarm", "Swarm (3 nodes)")):
    print("%-24s %8.0f %8.0f" % (label, statistics.median(lat[which]), pct(lat[which], 95)))

def docker(*args):
    subprocess.run(["docker", "-H", "unix://" + sock] + list(args), check=True,
                   stdout=subprocess.DEVNULL)

def burst(tag):
    d = os.path.join(T, "swarm")
    c0, t0 = cpu(d), time.monotonic()
    for i in range(BURST):
        drop(d, "%s%d" % (tag, i), "print(%d)\n" % i)
    nodes = {}
    for i in range(BURST):
        r = wait(d, "%s%d" % (tag, i))
        n = (r.get("execution") or {}).get("engine", {}).get("node") or "?"
        nodes[n] = nodes.get(n, 0) + 1
    wall = time.monotonic() - t0
    return BURST / wall, (cpu(d) - c0) * 1000 / BURST, nodes

print()
print("burst of %d trivial scripts through Swarm (agent workers: 6)" % BURST)
print("%-14s %8s %18s  %s" % ("trusted nodes", "runs/s", "agent CPU ms/run", "placement"))
# One node for the level: the other two serve another level.
docker("node", "update", "--label-add", "mai.trust=standard", node2)
docker("node", "update", "--label-add", "mai.trust=standard", node3)
rate, cpu_ms, nodes = burst("a")
print("%-14s %8.2f %18.1f  %s" % ("1", rate, cpu_ms, nodes))
docker("node", "update", "--label-add", "mai.trust=trusted", node2)
docker("node", "update", "--label-add", "mai.trust=trusted", node3)
rate, cpu_ms, nodes = burst("b")
print("%-14s %8.2f %18.1f  %s" % ("3", rate, cpu_ms, nodes))
PY
for p in $PIDS; do kill -TERM "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
PIDS=
swarm_down
