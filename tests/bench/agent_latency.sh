#!/bin/sh
# Drop-to-final-result latency of the agent for a trivial script, and the
# agent's RSS idle and after the load. Needs Docker and the sandbox image.
#
#   [MAI_BENCH_POOL=N] [MAI_BENCH_BANDIT=0] tests/bench/agent_latency.sh BUILD_DIR [N]
#
# MAI_BENCH_POOL sets the warm pool size (unset: the shipped pool_size:
# auto, as the agent sized it); MAI_BENCH_BANDIT=0 turns off the
# Bandit pass of the assessment (security.yaml analyzers.bandit.enabled, on
# by default when Bandit is installed: the resident Bandit worker checks each
# job).
#
# A drop is a rename into the drop directory (mv, mai-agent submit, an
# editor's write-temp-then-rename), taken at once; the same LOW script
# written in place (cp) is also timed, as it waits the settle delay. The
# baseline, run side by side, is the same drop with a HIGH script (the
# agent answers awaiting_confirmation without starting a container), so the
# ratio shows what the sandbox run costs on top of watch + intake + assess +
# sidecars. Each drop arrives at an idle agent with its warm pool full (as
# bench_sandbox's warm latency does): the script waits until the Engine API
# lists exactly the pool's containers for this agent, all running (refills
# and removals are done). The agent runs with the shipped defaults (but
# pool_size MAI_BENCH_POOL when set). Targets (issue #6):
# p50 <= 100 ms, p95 <= 250 ms with the warm pool; RSS idle < 16 MB (for
# RSS under a 1,000-drop load and throughput, see agent_load.sh).
set -eu
BUILD=${1:?usage: agent_latency.sh BUILD_DIR [N]}
N=${2:-30}
AGENT="$BUILD/agent/mai-agent"
T=$(mktemp -d "${TMPDIR:-/tmp}/mai-bench.XXXXXX")
PID=
trap '[ -n "$PID" ] && kill -TERM "$PID" 2>/dev/null; wait 2>/dev/null; rm -rf "$T"' EXIT

. "$(dirname "$0")/agent_bench_config.sh"
bench_agent_config
"$AGENT" run --log-file "$T/agent.log" &
PID=$!
until grep -q "\"pid\": $PID," "$T/state/status.json" 2>/dev/null; do sleep 0.1; done
POOL=$(bench_pool_size)
sleep 1
rss() { awk '/^VmRSS/ { print $2 }' "/proc/$PID/status"; }
idle=$(rss)

# One process times every drop (no process start inside a timed window):
# from the rename (run, base) or the start of the copy (cp) into the drop
# directory until result.json holds a final state, polled every 1 ms.
# Before each drop: wait until this agent's containers are its full warm
# pool (3 trust levels x pool_size), all running, nothing being removed.
python3 - "$T" "$N" $((3 * POOL)) <<'PY'
import json, os, shutil, socket, sys, time, urllib.parse
t, n, want = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
filt = urllib.parse.quote(json.dumps({"label": ["mai.instance=" + t + "/state"]}))
final = ('"state": "completed"', '"state": "awaiting_confirmation"', '"state": "rejected"',
         '"state": "blocked"')

def containers():
    s = socket.socket(socket.AF_UNIX)
    s.connect("/var/run/docker.sock")
    s.sendall(("GET /v1.41/containers/json?all=1&filters=%s HTTP/1.0\r\n\r\n" % filt).encode())
    data = b""
    while True:
        c = s.recv(65536)
        if not c:
            break
        data += c
    s.close()
    return json.loads(data.split(b"\r\n\r\n", 1)[1])

def wait_idle():
    end = time.monotonic() + 60
    while time.monotonic() < end:
        cs = containers()
        if len(cs) == want and all(c["State"] == "running" for c in cs):
            return
        time.sleep(0.05)
    sys.exit("the warm pool did not fill within 60 s")

def one_run(kind, i):
    src, dst = "%s/%s%d.py" % (t, kind, i), "%s/drop/%s%d.py" % (t, kind, i)
    res = "%s/drop/%s%d.result.json" % (t, kind, i)
    with open(src, "w") as f:
        f.write("import os\nos.system('x%d')\n" % i if kind == "base" else "print(%d)\n" % i)
    wait_idle()
    start = time.monotonic()
    if kind == "cp":
        shutil.copyfile(src, dst)
    else:
        os.rename(src, dst)
    while True:
        try:
            with open(res) as f:
                text = f.read()
            if any(k in text for k in final):
                break
        except FileNotFoundError:
            pass
        time.sleep(0.001)
    return (time.monotonic() - start) * 1000

ms = {"run": [], "base": [], "cp": []}
for i in range(n):
    for kind in ("run", "base", "cp"):
        ms[kind].append(one_run(kind, i))
for kind, v in ms.items():
    with open("%s/%s.ms" % (t, kind), "w") as f:
        f.write("".join("%.0f\n" % x for x in v))
PY

pct() { sort -n | awk -v p="$1" '{ a[NR] = $1 } END { i = int(NR * p / 100 + 0.999); if (i < 1) i = 1; print a[i] }'; }

loaded=$(rss)
hwm=$(awk '/^VmHWM/ { print $2 }' "/proc/$PID/status")
r50=$(pct 50 < "$T/run.ms"); r95=$(pct 95 < "$T/run.ms")
b50=$(pct 50 < "$T/base.ms"); b95=$(pct 95 < "$T/base.ms")
c50=$(pct 50 < "$T/cp.ms"); c95=$(pct 95 < "$T/cp.ms")
settle=$(awk '/^ *settle_delay:/ { print $2 }' "$(dirname "$0")/../../config/agent.yaml")
how=${MAI_BENCH_POOL:+pool_size: $MAI_BENCH_POOL}
echo "assessment: $ANALYSIS; warm pool $POOL per trust level (${how:-the shipped pool_size: auto})"
echo "drop-to-result, trivial LOW script run in the sandbox (n=$N): p50 ${r50} ms, p95 ${r95} ms"
echo "baseline, HIGH script held without a run (n=$N):           p50 ${b50} ms, p95 ${b95} ms"
echo "the LOW script written in place (cp; settle_delay $settle) (n=$N): p50 ${c50} ms, p95 ${c95} ms"
echo "ratio run/baseline: p50 $(awk -v a="$r50" -v b="$b50" 'BEGIN { printf "%.1f", a / (b ? b : 1) }'), p95 $(awk -v a="$r95" -v b="$b95" 'BEGIN { printf "%.1f", a / (b ? b : 1) }')"
echo "agent RSS: idle $((idle / 1024)) MB, after the runs $((loaded / 1024)) MB, peak (VmHWM) $((hwm / 1024)) MB"
