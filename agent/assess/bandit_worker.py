# The agent's resident Bandit worker (agent/assess/bandit_worker.c starts it with
# the interpreter named on the `bandit` script's #! line and this text as
# its -c program). Bandit is imported once; each request is then a few
# milliseconds instead of a new interpreter and its plugin loading: its
# test set (the plugins and blacklists, which depend only on the
# configuration, the same for every snapshot) is built once, and the
# snapshot is handed to Bandit in memory (memfd), not through a file on disk.
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
from bandit.core import extension_loader as b_extensions
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


def _snapshot_file():
    """An unnamed file for the snapshot: nothing of it is left behind when
    the agent kills this process. In memory (memfd) where the kernel has it:
    a file on disk cost a request its close, which waits for the file
    system's journal (several ms when others write)."""
    try:
        return os.fdopen(os.memfd_create("mai-snapshot", os.MFD_CLOEXEC), "w+b")
    except (AttributeError, OSError):
        return tempfile.TemporaryFile()


_test_set = []


def _manager(conf, profile):
    """A BanditManager for one snapshot. Bandit builds its test set (plugins
    loaded from their entry points, the blacklists) in every manager; it
    depends only on conf and profile, which never change here, and the tests
    only read it, so the first one is handed to every later manager."""
    if not _test_set:
        mgr = b_manager.BanditManager(conf, "file", quiet=True, profile=profile)
        _test_set.append(mgr.b_ts)
        return mgr
    build = b_manager.b_test_set.BanditTestSet
    b_manager.b_test_set.BanditTestSet = lambda *args, **kwargs: _test_set[0]
    try:
        return b_manager.BanditManager(conf, "file", quiet=True, profile=profile)
    finally:
        b_manager.b_test_set.BanditTestSet = build


class _Blacklists:
    """Bandit's blacklist entries as they were after the import, put back
    after every report. Its docs_utils.get_url() (Bandit 1.6) rewrites the
    entry it builds a link for (B304/B305 and B313-B320 get their page's id),
    and the blacklist test reports from that same entry: from its second
    report on, a resident process reported B314 as "b313-b320", which the
    one-shot `bandit` never does."""

    def __init__(self):
        by_id = getattr(b_extensions.MANAGER, "blacklist_by_id", None) or {}
        self.kept = [(e, dict(e)) for e in by_id.values() if isinstance(e, dict)]

    def restore(self):
        for entry, was in self.kept:
            if entry != was:
                entry.clear()
                entry.update(was)


_BLACKLISTS = _Blacklists()


def _report(conf, source):
    with _snapshot_file() as f:
        f.write(source)
        f.flush()
        path = "/proc/self/fd/%d" % f.fileno()
        # what `bandit -q -f json PATH` does with no config file, no
        # profile and no .bandit ini (a file target has none)
        profile = {"include": set(conf.get_option("tests") or []),
                   "exclude": set(conf.get_option("skips") or [])}
        mgr = _manager(conf, profile)
        mgr.discover_files([path], False, "")
        mgr.run_tests()
        report = _Report()
        try:
            mgr.output_results(3, "LOW", "LOW", report, "json")
        finally:
            # the report's code excerpts come from linecache, by file
            # name: the next snapshot has the same one
            linecache.clearcache()
            _BLACKLISTS.restore()
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
