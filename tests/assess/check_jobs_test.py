#!/usr/bin/env python3
"""`mai-agent check --jobs N`: files are assessed on several threads, yet the
output (text, JSON, SARIF), the error messages and the exit status are
byte-for-byte those of the sequential run (--jobs 1), in the same order."""
import os
import subprocess
import sys
import tempfile

agent = os.environ["MAI_AGENT"]
root = os.environ["MAI_SOURCE_ROOT"]
corpus = os.path.join(root, "tests", "assess", "corpus")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def run(*args):
    return subprocess.run([agent, "check", *args], capture_output=True, timeout=120)


with tempfile.TemporaryDirectory() as d:
    cfg = os.path.join(d, "cfg")
    os.mkdir(cfg)
    # An unreadable path between two trees: its message keeps its place.
    missing = os.path.join(d, "missing.py")
    paths = [corpus, missing, os.path.join(corpus, "benign_bom.py")]
    for fmt in ("text", "json", "sarif"):
        common = ["--native-only", "--config-dir", cfg, "--format", fmt]
        seq = run(*common, "--jobs", "1", *paths)
        check(seq.returncode == 2, "%s: an unreadable file exits 2, got %d" % (fmt, seq.returncode))
        check(seq.stdout.count(b"\n") > 100, "%s: the corpus gives output" % fmt)
        # The default (the CPUs this process may use), and more threads than
        # CPUs with a window smaller than the corpus (119 files).
        for jobs in ([], ["--jobs", "3"], ["--jobs", "16"]):
            par = run(*common, *jobs, *paths)
            what = "%s %s" % (fmt, " ".join(jobs) or "default jobs")
            check(par.returncode == seq.returncode,
                  "%s: exit %d, sequential %d" % (what, par.returncode, seq.returncode))
            check(par.stdout == seq.stdout, "%s: stdout differs from --jobs 1" % what)
            check(par.stderr == seq.stderr, "%s: stderr differs from --jobs 1:\n%s\n---\n%s"
                  % (what, par.stderr.decode(), seq.stderr.decode()))

    # The JSON array is streamed file by file: no file is still an array.
    empty = os.path.join(d, "empty")
    os.mkdir(empty)
    p = run("--native-only", "--config-dir", cfg, "--format", "json", empty)
    check(p.returncode == 0 and p.stdout == b"[]\n", "no file gives []: %r" % p.stdout)

    for bad in ("0", "x", "65", ""):
        p = run("--jobs", bad, corpus)
        check(p.returncode == 2 and b"bad --jobs" in p.stderr,
              "--jobs '%s' is a usage error: %d %s" % (bad, p.returncode, p.stderr))

for f in failures:
    print("FAIL " + f)
print("%d failures" % len(failures))
sys.exit(1 if failures else 0)
