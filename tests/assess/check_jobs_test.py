#!/usr/bin/env python3
"""`mai-agent check --jobs N`: files are assessed on several threads, yet the
output (text, JSON, SARIF), the error messages and the exit status are
byte-for-byte those of the sequential run (--jobs 1), in the same order.
With Bandit on, each thread's resident Bandit gives what a one-shot
`bandit` process per file gives."""
import json
import os
import shutil
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

    # Bandit: the resident workers (one per thread) against the one-shot
    # process per file. A `bandit` whose #! line runs Python without its
    # site packages (-S) cannot start a worker (Bandit is not importable
    # there), so check falls back to the one-shot run of that program, which
    # execs the real bandit.
    bandit = shutil.which("bandit")
    if bandit is None:
        msg = "bandit is not installed (packaging/install-deps.sh installs it)"
        if os.environ.get("MAI_REQUIRE_REAL") == "1":
            failures.append(msg)
        else:
            print("SKIP part: " + msg)
    else:
        oneshot = os.path.join(d, "bandit-oneshot")
        with open(oneshot, "w") as f:
            f.write("#!/usr/bin/python3 -S\nimport os, sys\nos.execv(%r, [%r] + sys.argv[1:])\n"
                    % (bandit, bandit))
        os.chmod(oneshot, 0o755)
        configs = {}
        for name, path in (("worker", "bandit"), ("oneshot", oneshot)):
            configs[name] = os.path.join(d, name)
            os.mkdir(configs[name])
            with open(os.path.join(configs[name], "security.yaml"), "w") as f:
                f.write("analyzers:\n  bandit:\n    enabled: true\n    path: %s\n    timeout: 2m\n" % path)
        # Bandit-only findings (assert, random), findings both analyzers
        # make, and a file with none
        bdir = os.path.join(d, "bandit-files")
        os.mkdir(bdir)
        sources = {
            "a_assert.py": "def f(x):\n    assert x > 0\n    return x\n",
            "b_random.py": "import random\nprint(random.random())\n",
            "e_shell.py": "import subprocess, sys\nsubprocess.call(sys.argv[1], shell=True)\n",
            "f_hello.py": "print('hello')\n",
        }
        for n, text in sources.items():
            with open(os.path.join(bdir, n), "w") as f:
                f.write(text)
        picked = [bdir]
        out = {}
        for name, jobs in (("worker", "3"), ("oneshot", "3")):
            p = run("--config-dir", configs[name], "--format", "json", "--jobs", jobs, *picked)
            out[(name, jobs)] = p
            check(p.returncode in (0, 10, 11, 12), "bandit %s --jobs %s: exit %d: %s"
                  % (name, jobs, p.returncode, p.stderr.decode()))
        results = json.loads(out[("worker", "3")].stdout)
        failed = [(r["path"], n) for r in results for n in r["notes"]
                  if "native findings only" in n or "cannot" in n]
        check(sum(f["source"] == "bandit" for r in results for f in r["findings"]) >= 2 and not failed,
              "Bandit's findings are in the worker's output, without a failure note: %s %s"
              % (failed, [(r["path"], r["findings"]) for r in results]))
        check(out[("oneshot", "3")].stdout == out[("worker", "3")].stdout,
              "bandit: the one-shot runs differ from the resident workers:\n%s\n---\n%s"
              % (out[("oneshot", "3")].stdout.decode()[:3000], out[("worker", "3")].stdout.decode()[:3000]))
        check(b"could not import Bandit" in out[("oneshot", "3")].stderr
              and b"could not import" not in out[("worker", "3")].stderr,
              "the one-shot run took the fallback and the worker run did not: %s / %s"
              % (out[("oneshot", "3")].stderr, out[("worker", "3")].stderr))

for f in failures:
    print("FAIL " + f)
print("%d failures" % len(failures))
sys.exit(1 if failures else 0)
