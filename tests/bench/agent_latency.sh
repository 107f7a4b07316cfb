#!/bin/sh
# Drop-to-final-result latency of the agent for a trivial script, and the
# agent's RSS idle and after the load. Needs Docker and the sandbox image.
#
#   [MAI_BENCH_POOL=N] [MAI_BENCH_BANDIT=0] tests/bench/agent_latency.sh [--stages] BUILD_DIR [N]
#
# --stages adds, for the LOW run and the HIGH baseline, the p50 of each stage
# the agent timed (result.json "stages_ms", agent/base/stagetime.h), what
# the agent did not time (the rename's inotify event reaching it, the final
# result.json's own write, this script waking on it: the drop's time minus
# the stages), and, for the run, the refill: from the final result until the
# warm pool is full and idle again (the container removed, a new one
# started), which a drop arriving in that window would wait on.
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
# pool_size MAI_BENCH_POOL when set). Targets (issue #30, the run with the
# warm pool): p50 <= 20 ms, p95 <= 40 ms; RSS idle < 16 MB (issue #6; for
# RSS under a 1,000-drop load and throughput, see agent_load.sh).
set -eu
STAGES=0
[ "${1:-}" = --stages ] && { STAGES=1; shift; }
BUILD=${1:?usage: agent_latency.sh [--stages] BUILD_DIR [N]}
N=${2:-30}
AGENT="$BUILD/agent/mai-agent"
T=$(mktemp -d "${TMPDIR:-/tmp}/mai-bench.XXXXXX")
PID=
. "$(dirname "$0")/bench_lib.sh"
trap 'bench_stop "$PID"; rm -rf "$T"' EXIT
. "$BENCH_DIR/agent_bench_config.sh"
bench_agent_config
"$AGENT" run --log-file "$T/agent.log" &
PID=$!
bench_agent_up "$PID" "$T/state" "$T/agent.log"
POOL=$(bench_pool_size) || exit 1
# Idle: the warm pool full (3 trust levels x pool_size, all running).
PYTHONPATH="$BENCH_DIR" python3 "$BENCH_DIR/agent_bench.py" wait-idle "$T/state" $((3 * POOL))
rss() { awk '/^VmRSS/ { print $2 }' "/proc/$PID/status"; }
idle=$(rss)

# One process times every drop (no process start inside a timed window):
# from the rename (run, base) or the start of the copy (cp) into the drop
# directory until result.json holds a final state, read again at each
# change inotify reports (agent_bench.wait_final).
# Before each drop: wait until this agent's containers are its full warm
# pool (3 trust levels x pool_size), all running, nothing being removed.
PYTHONPATH="$BENCH_DIR" python3 - "$T" "$N" $((3 * POOL)) "$STAGES" <<'PY'
import json, os, shutil, sys, time
from agent_bench import pct, wait_final, wait_idle
t, n, want, show_stages = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1"
stages = {"run": [], "base": []}
ORDER = ("intake", "queue", "audit", "history", "assess", "analyzers", "result_writes", "run_note",
         "container", "script", "end", "output", "removal", "sidecar", "other", "unaccounted")
refill = []

def one_run(kind, i):
    src, dst = "%s/%s%d.py" % (t, kind, i), "%s/drop/%s%d.py" % (t, kind, i)
    res = "%s/drop/%s%d.result.json" % (t, kind, i)
    with open(src, "w") as f:
        # base: a script the gate holds (a shell command fed sys.argv; a
        # literal os.system is contained and runs).
        f.write("import os, sys\nos.system('x%d ' + sys.argv[0])\n" % i if kind == "base" else "print(%d)\n" % i)
    wait_idle(t + "/state", want)
    start = time.monotonic()
    if kind == "cp":
        shutil.copyfile(src, dst)
    else:
        os.rename(src, dst)
    state = wait_final(res)
    ms = (time.monotonic() - start) * 1000
    want_state = "awaiting_confirmation" if kind == "base" else "completed"
    if state != want_state:
        sys.exit("%s: %s, not %s: the figure would be wrong" % (res, state, want_state))
    if kind in stages:
        with open(res) as f:
            st = json.load(f).get("stages_ms", {})
        st["unaccounted"] = ms - sum(st.values())
        stages[kind].append(st)
    if kind == "run":
        ended = time.monotonic()
        wait_idle(t + "/state", want)
        refill.append((time.monotonic() - ended) * 1000)
    return ms

ms = {"run": [], "base": [], "cp": []}
for i in range(n):
    for kind in ("run", "base", "cp"):
        ms[kind].append(one_run(kind, i))
for kind, v in ms.items():
    with open("%s/%s.pct" % (t, kind), "w") as f:
        f.write("%.0f %.0f\n" % (pct(v, 50), pct(v, 95)))
if show_stages:
    with open("%s/stages" % t, "w") as f:
        for kind, label in (("run", "LOW run"), ("base", "HIGH held")):
            # In the order a job meets them (stagetime.h), then any other.
            keys = [k for k in ORDER if any(k in st for st in stages[kind])]
            for st in stages[kind]:
                keys += [k for k in st if k not in keys]
            # A stage absent from a drop took no time in it.
            parts = ["%s %.2f" % (k, pct([st.get(k, 0) for st in stages[kind]], 50))
                     for k in keys]
            if kind == "run":
                parts.append("refill to idle %.0f" % pct(refill, 50))
            f.write("stages p50 ms, %s (n=%d): %s\n" % (label, len(stages[kind]), ", ".join(parts)))
PY

loaded=$(rss)
hwm=$(awk '/^VmHWM/ { print $2 }' "/proc/$PID/status")
read -r r50 r95 < "$T/run.pct"
read -r b50 b95 < "$T/base.pct"
read -r c50 c95 < "$T/cp.pct"
settle=$(awk '/^ *settle_delay:/ { print $2 }' "$(dirname "$0")/../../config/agent.yaml")
how=${MAI_BENCH_POOL:+pool_size: $MAI_BENCH_POOL}
echo "assessment: $ANALYSIS; warm pool $POOL per trust level (${how:-the shipped pool_size: auto})"
echo "drop-to-result, trivial LOW script run in the sandbox (n=$N): p50 ${r50} ms, p95 ${r95} ms"
echo "baseline, HIGH script held without a run (n=$N):           p50 ${b50} ms, p95 ${b95} ms"
echo "the LOW script written in place (cp; settle_delay $settle) (n=$N): p50 ${c50} ms, p95 ${c95} ms"
echo "ratio run/baseline: p50 $(awk -v a="$r50" -v b="$b50" 'BEGIN { printf "%.1f", a / (b ? b : 1) }'), p95 $(awk -v a="$r95" -v b="$b95" 'BEGIN { printf "%.1f", a / (b ? b : 1) }')"
echo "agent RSS: idle $((idle / 1024)) MB, after the runs $((loaded / 1024)) MB, peak (VmHWM) $((hwm / 1024)) MB"
[ "$STAGES" = 0 ] || cat "$T/stages"
