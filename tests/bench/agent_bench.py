"""Shared by the agent's benchmarks (agent_latency.sh, agent_load.sh,
bench_dropfs.sh): the agent's containers as the Engine API lists them,
waiting until a warm pool is full and idle, and waiting for a final result.
Every wait has a deadline and says what it waited for when it gives up.

    python3 agent_bench.py wait-idle STATE_DIR WANT [SECONDS]

waits from a shell script (exit 1 with the reason on stderr)."""
import json
import os
import socket
import sys
import time
import urllib.parse

from pct import pct  # noqa: F401  (the benchmarks' one percentile definition)

FINAL = ("completed", "awaiting_confirmation", "rejected", "blocked")
# How long a wait may last before the benchmark gives up (seconds).
IDLE_S = float(os.environ.get("MAI_BENCH_IDLE_S", "60"))
FINAL_S = float(os.environ.get("MAI_BENCH_FINAL_S", "60"))


def containers(state_dir):
    """The containers (any state) of the agent whose state directory is state_dir."""
    filt = urllib.parse.quote(json.dumps({"label": ["mai.instance=" + state_dir]}))
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(10)
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


def wait_idle(state_dir, want, seconds=None):
    """Until the agent's containers are its full warm pool (want of them), all
    running: refills and removals done. Exits the benchmark after seconds
    (MAI_BENCH_IDLE_S, 60) with what it saw last."""
    end = time.monotonic() + (IDLE_S if seconds is None else seconds)
    seen = []
    while time.monotonic() < end:
        seen = [c["State"] for c in containers(state_dir)]
        if len(seen) == want and all(s == "running" for s in seen):
            return
        time.sleep(0.02)
    sys.exit("gave up after %.0f s waiting for the warm pool of %s to be %d running containers "
             "(last seen: %d: %s)" % (IDLE_S if seconds is None else seconds, state_dir, want,
                                      len(seen), ", ".join(sorted(seen)) or "none"))


def state_of(result):
    """The state in result (a result.json path), or None (no file, or caught
    mid-write)."""
    try:
        with open(result) as f:
            return json.load(f).get("state")
    except (FileNotFoundError, ValueError):
        return None


def wait_final(result, seconds=None):
    """Polls result (a result.json path) every 1 ms until it holds a final
    state, which it returns. Exits the benchmark after seconds
    (MAI_BENCH_FINAL_S, 60) with the state seen last."""
    end = time.monotonic() + (FINAL_S if seconds is None else seconds)
    state = None
    while time.monotonic() < end:
        state = state_of(result)
        if state in FINAL:
            return state
        time.sleep(0.001)
    sys.exit("gave up after %.0f s waiting for a final state in %s (last seen: %s)"
             % (FINAL_S if seconds is None else seconds, result, state or "no result file"))


if __name__ == "__main__":
    if len(sys.argv) in (4, 5) and sys.argv[1] == "wait-idle":
        wait_idle(sys.argv[2], int(sys.argv[3]), float(sys.argv[4]) if len(sys.argv) == 5 else None)
    else:
        sys.exit("usage: agent_bench.py wait-idle STATE_DIR WANT [SECONDS]")
