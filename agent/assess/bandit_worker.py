# The agent's resident Bandit worker (agent/assess/bandit_worker.c starts it with
# the interpreter named on the `bandit` script's #! line and this text as
# its -c program). Bandit is imported once; each request is then a few
# milliseconds instead of a new interpreter and its plugin loading.
#
# Protocol on stdin/stdout (a socket the agent holds the other end of):
# every message is a 4-byte big-endian length and that many bytes. The
# worker first sends b"ready"; then for each snapshot the agent sends, it
# answers with Bandit's JSON report on it, exactly what `bandit -q -f json
# FILE` prints, or with an empty message when Bandit failed on it (the
# agent then runs the one-shot `bandit` instead). End of input: it exits.
import sys

# -c puts the working directory first on sys.path: nothing is imported
# from wherever the agent happens to run.
if sys.path and sys.path[0] in ("", "."):
    del sys.path[0]

import io
import linecache
import logging
import os
import struct
import tempfile

from bandit.core import config as b_config
from bandit.core import manager as b_manager

HEADER = struct.Struct(">I")


class _Report(io.StringIO):
    """The report's output file: Bandit's json formatter closes it."""

    name = "<report>"
    text = ""

    def close(self):
        if not self.closed:
            self.text = self.getvalue()
        super().close()


def _read_exact(stream, n):
    data = b""
    while len(data) < n:
        chunk = stream.read(n - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def _send(out, payload):
    out.write(HEADER.pack(len(payload)) + payload)
    out.flush()


def _report(conf, source):
    # An unnamed file (O_TMPFILE where the file system has it): nothing of
    # the snapshot is left behind when the agent kills this process.
    with tempfile.TemporaryFile() as f:
        f.write(source)
        f.flush()
        path = "/proc/self/fd/%d" % f.fileno()
        # what `bandit -q -f json PATH` does with no config file, no
        # profile and no .bandit ini (a file target has none)
        profile = {"include": set(conf.get_option("tests") or []),
                   "exclude": set(conf.get_option("skips") or [])}
        mgr = b_manager.BanditManager(conf, "file", quiet=True, profile=profile)
        mgr.discover_files([path], False, "")
        mgr.run_tests()
        report = _Report()
        try:
            mgr.output_results(3, "LOW", "LOW", report, "json")
        finally:
            # the report's code excerpts come from linecache, by file
            # name: the next snapshot has the same one
            linecache.clearcache()
        return report.text.encode("utf-8")


def main():
    # fd 1 is the answer channel: Bandit's own writes to stdout (none are
    # expected) go to stderr instead of into a message.
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    stdin = sys.stdin.buffer
    logging.basicConfig(level=logging.WARN)
    conf = b_config.BanditConfig()
    _send(out, b"ready")
    while True:
        header = _read_exact(stdin, HEADER.size)
        if header is None:
            return 0
        source = _read_exact(stdin, HEADER.unpack(header)[0])
        if source is None:
            return 0
        try:
            answer = _report(conf, source)
        except Exception as e:  # the agent falls back to the one-shot run
            sys.stderr.write("mai bandit worker: %s\n" % e)
            answer = b""
        _send(out, answer)


sys.exit(main())
