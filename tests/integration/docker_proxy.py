#!/usr/bin/env python3
"""A Unix socket in front of the Docker engine that can go down and come back,
so that a test can give the agent a Docker outage without touching the
engine others use.

    docker_proxy.py LISTEN_PATH ENGINE_SOCKET

Every connection to LISTEN_PATH is relayed to ENGINE_SOCKET, each way, a
half-close included (the agent closes a run's stdin that way). SIGUSR1 takes
it down: the open connections are cut and LISTEN_PATH becomes a socket that
refuses connections (ECONNREFUSED), as an engine's socket does once the
engine is gone. SIGUSR2 brings it back. It prints "ready" once it listens."""
import os
import select
import signal
import socket
import sys
import threading

listen_path, engine = sys.argv[1], sys.argv[2]
lock = threading.Lock()
conns = set()
wake_r, wake_w = os.pipe()
down = False


def bind(listening):
    if os.path.exists(listen_path):
        os.unlink(listen_path)
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(listen_path)
    if listening:
        s.listen(128)
    return s


def relay(src, dst):
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            dst.sendall(data)
        dst.shutdown(socket.SHUT_WR)
    except OSError:
        pass


def serve(client):
    upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        upstream.connect(engine)
    except OSError:
        client.close()
        return
    with lock:
        conns.add(client)
        conns.add(upstream)
    threads = [threading.Thread(target=relay, args=(client, upstream), daemon=True),
               threading.Thread(target=relay, args=(upstream, client), daemon=True)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    with lock:
        conns.discard(client)
        conns.discard(upstream)
    client.close()
    upstream.close()


def on_signal(signum, frame):
    os.write(wake_w, b"d" if signum == signal.SIGUSR1 else b"u")


signal.signal(signal.SIGUSR1, on_signal)
signal.signal(signal.SIGUSR2, on_signal)
signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
listener = bind(True)
print("ready", flush=True)
while True:
    ready, _, _ = select.select([wake_r] + ([] if down else [listener]), [], [])
    if wake_r in ready:
        cmd = os.read(wake_r, 1)
        if cmd == b"d" and not down:
            down = True
            listener.close()
            with lock:
                for c in list(conns):
                    try:
                        c.shutdown(socket.SHUT_RDWR)
                    except OSError:
                        pass
            listener = bind(False)  # refuses: bound, not listening
        elif cmd == b"u" and down:
            down = False
            listener.close()
            listener = bind(True)
        continue
    if listener in ready and not down:
        try:
            client, _ = listener.accept()
        except OSError:
            continue
        threading.Thread(target=serve, args=(client,), daemon=True).start()
