"""Shared by the agent's benchmarks (agent_latency.sh, agent_load.sh,
bench_dropfs.sh): the agent's containers as the Engine API lists them,
waiting until a warm pool is full and idle, and waiting for a final result.
Every wait has a deadline and says what it waited for when it gives up.
Neither wait polls: the containers are listed again when the engine reports
an event of one of them (GET /events), and result.json is read again when
inotify reports a change of it (tests/tools/fswait.py). Polls every 20 ms
and 1 ms cost the suite's benchmark smoke test most of its CPU time (the
engine's as much as Python's), and more the slower the machine.

    python3 agent_bench.py wait-idle STATE_DIR WANT [SECONDS]

waits from a shell script (exit 1 with the reason on stderr)."""
import json
import os
import select
import socket
import sys
import time
import urllib.parse

from pct import pct  # noqa: F401  (the benchmarks' one percentile definition)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import fswait  # noqa: E402

FINAL = ("completed", "awaiting_confirmation", "rejected", "blocked")
# How long a wait may last before the benchmark gives up (seconds).
IDLE_S = float(os.environ.get("MAI_BENCH_IDLE_S", "60"))
FINAL_S = float(os.environ.get("MAI_BENCH_FINAL_S", "60"))


def _engine(path, state_dir, **filters):
    """A socket to the engine on which GET path, filtered to state_dir's
    containers (and filters), was sent; the response follows."""
    filters["label"] = ["mai.instance=" + state_dir]
    query = urllib.parse.quote(json.dumps(filters))
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(10)
    s.connect("/var/run/docker.sock")
    s.sendall(("GET /v1.41/%s%sfilters=%s HTTP/1.0\r\n\r\n"
               % (path, "&" if "?" in path else "?", query)).encode())
    return s


def containers(state_dir):
    """The containers (any state) of the agent whose state directory is state_dir."""
    s = _engine("containers/json?all=1", state_dir)
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
    running: refills and removals done. Lists them once, then again at each
    event the engine reports about one of them (created, started, died,
    removed...) and at least every second. Exits the benchmark after seconds
    (MAI_BENCH_IDLE_S, 60) with what it saw last."""
    limit = IDLE_S if seconds is None else seconds
    end = time.monotonic() + limit
    # Subscribed before the first list, from a second back: the engine
    # subscribes the stream after it sends the response's head, and an
    # event of that gap is sent again (an extra list costs nothing).
    events = _engine("events?since=%d" % (time.time() - 1), state_dir, type=["container"])
    seen = []
    try:
        while True:
            seen = [c["State"] for c in containers(state_dir)]
            if len(seen) == want and all(s == "running" for s in seen):
                return
            left = end - time.monotonic()
            if left <= 0:
                break
            if select.select([events], [], [], min(left, 1.0))[0] and not events.recv(65536):
                sys.exit("the engine closed the stream of events while waiting for the warm pool")
    finally:
        events.close()
    sys.exit("gave up after %.0f s waiting for the warm pool of %s to be %d running containers "
             "(last seen: %d: %s)" % (limit, state_dir, want, len(seen),
                                      ", ".join(sorted(seen)) or "none"))


def state_of(result):
    """The state in result (a result.json path), or None (no file, or caught
    mid-write)."""
    try:
        with open(result) as f:
            return json.load(f).get("state")
    except (FileNotFoundError, ValueError):
        return None


def wait_final(result, seconds=None, watch_dir=None):
    """Until result (a result.json path) holds a final state, which it
    returns: read again at each change of the file that inotify reports
    (fswait.until), so the wait ends at the agent's rename itself. watch_dir
    is result's directory as inotify sees the agent's writes (in mount mode,
    the directory underneath the mount). Exits the benchmark after seconds
    (MAI_BENCH_FINAL_S, 60) with the state seen last."""
    limit = FINAL_S if seconds is None else seconds
    last = []

    def final():
        last[:] = [state_of(result)]
        return last[0] if last[0] in FINAL else None

    state = fswait.until(result, final, limit, poll_s=0.001, watch_dir=watch_dir)
    if state:
        return state
    sys.exit("gave up after %.0f s waiting for a final state in %s (last seen: %s)"
             % (limit, result, last[0] or "no result file"))


if __name__ == "__main__":
    if len(sys.argv) in (4, 5) and sys.argv[1] == "wait-idle":
        wait_idle(sys.argv[2], int(sys.argv[3]), float(sys.argv[4]) if len(sys.argv) == 5 else None)
    else:
        sys.exit("usage: agent_bench.py wait-idle STATE_DIR WANT [SECONDS]")
