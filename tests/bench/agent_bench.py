"""Shared by the agent's benchmarks (agent_latency.sh, bench_dropfs.sh):
the agent's containers as the Engine API lists them, waiting until a warm
pool is full and idle, and waiting for a final result."""
import json
import socket
import sys
import time
import urllib.parse

FINAL = ('"state": "completed"', '"state": "awaiting_confirmation"', '"state": "rejected"',
         '"state": "blocked"')


def containers(state_dir):
    """The containers (any state) of the agent whose state directory is state_dir."""
    filt = urllib.parse.quote(json.dumps({"label": ["mai.instance=" + state_dir]}))
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


def wait_idle(state_dir, want):
    """Until the agent's containers are its full warm pool (want of them), all
    running: refills and removals done."""
    end = time.monotonic() + 60
    while time.monotonic() < end:
        cs = containers(state_dir)
        if len(cs) == want and all(c["State"] == "running" for c in cs):
            return
        time.sleep(0.05)
    sys.exit("the warm pool of %s did not fill within 60 s" % state_dir)


def wait_final(result):
    """Polls result (a result.json path) every 1 ms until it holds a final state."""
    while True:
        try:
            with open(result) as f:
                if any(k in f.read() for k in FINAL):
                    return
        except FileNotFoundError:
            pass
        time.sleep(0.001)


def pct(values, p):
    """The p-th percentile (nearest rank)."""
    v = sorted(values)
    return v[max(0, min(len(v) - 1, int(len(v) * p / 100 + 0.999) - 1))]
