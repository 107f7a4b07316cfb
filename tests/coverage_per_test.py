#!/usr/bin/env python3
"""Which tests run each line: the per-test half of tests/coverage.sh.

    coverage_per_test.py prepare BUILD ROOT
    coverage_per_test.py collect BUILD ROOT

prepare makes BUILD/per-test/.template, the tree that tests/coverage_wrap.sh
copies for each test: the build's folders with, for each object that has
notes (.gcno), a link to its notes and an empty counts file (.gcda) that
anyone may write (some tests run the agent as other accounts; an empty
counts file is taken as "no counts yet").

collect, after the run, names each test's directory by matching the
command line the wrapper kept against meson's test table, and writes
BUILD/per-test.json:

  {"tree": ID, "tests": {NAME: {"seconds": S, "result": R,
                                "lines": {"agent/x/f.c": [LINE, ...]}}},
   "executable": {"agent/x/f.c": [LINE, ...]}}

(the lines of agent/ and fs/ that the test's processes ran, from gcov's
JSON; seconds and result from meson's testlog; ID: tree_id() of the code
and tests when prepare ran, as the run started). It then adds every test's counts into the build
directory's own counts files (gcov-tool merge), where processes that lost
the wrapper's environment (an `env -i`) wrote theirs, so that gcovr's
report of the whole suite is the same as without the wrapper; it lists
those lines as the test "(unattributed)".
"""
import hashlib
import json
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# What the lines each test runs depend on: the code and the tests, not
# the reports and tools about them.
TREE_PATHS = ["agent", "fs", "tests", "meson.build", "meson_options.txt", ":!tests/*.md",
              ":!tests/mutate.py", ":!tests/tools/test_mutate.py", ":!tests/mutate-equivalent.txt", ":!tests/coverage-reasons.txt",
              ":!tests/coverage_report.py", ":!tests/coverage_per_test.py", ":!tests/coverage_wrap.sh",
              ":!tests/coverage.sh"]


def tree_id(root):
    """A hash of the content of the code and tests as they are in the
    working tree (committed or not): the key per-test coverage is cached by,
    so that a commit of a report or of mutate.py does not make it stale."""
    def git(*args):
        return subprocess.run(["git", "-C", root] + list(args), stdout=subprocess.PIPE,
                              check=True).stdout
    h = hashlib.sha1(git("ls-files", "-s", "--", *TREE_PATHS))
    h.update(git("diff", "--", *TREE_PATHS))
    h.update(git("ls-files", "--others", "--exclude-standard", "--", *TREE_PATHS))
    return h.hexdigest()[:16]


def objects(build):
    """Every object with notes, as a path relative to BUILD without .gcno."""
    out = []
    for d, dirs, files in os.walk(build):
        dirs[:] = [x for x in dirs if x != "per-test"]
        for f in files:
            if f.endswith(".gcno"):
                out.append(os.path.relpath(os.path.join(d, f[:-5]), build))
    return sorted(out)


def prepare(build, root):
    base = os.path.join(build, "per-test")
    shutil.rmtree(base, ignore_errors=True)
    tmpl = os.path.join(base, ".template")
    os.makedirs(base)
    # The tree as the run starts: what the tests run is built from it.
    with open(os.path.join(base, ".tree"), "w", encoding="utf-8") as f:
        f.write(tree_id(root))
    for obj in objects(build):
        os.makedirs(os.path.join(tmpl, os.path.dirname(obj)), exist_ok=True)
        os.symlink(os.path.join(os.path.abspath(build), obj + ".gcno"), os.path.join(tmpl, obj + ".gcno"))
        data = os.path.join(tmpl, obj + ".gcda")
        open(data, "w").close()
        os.chmod(data, 0o666)


def lines_run(directory, root, listed=None):
    """{source relative to ROOT: set of lines run} of the counts in a tree;
    the lines gcov lists at all (executable ones) are added to listed."""
    datas = []
    for d, _, files in os.walk(directory):
        for f in files:
            p = os.path.join(d, f)
            if f.endswith(".gcda") and os.path.getsize(p) > 0:
                datas.append(p)
    out = {}
    for i in range(0, len(datas), 200):
        r = subprocess.run(["gcov", "--json-format", "--stdout"] + datas[i:i + 200], cwd=directory,
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        for doc in r.stdout.decode(errors="replace").splitlines():
            if not doc.startswith("{"):
                continue
            d = json.loads(doc)
            for f in d["files"]:
                src = os.path.relpath(os.path.normpath(os.path.join(d["current_working_directory"], f["file"])),
                                      root)
                if not (src.startswith("agent/") or src.startswith("fs/")):
                    continue
                ran = {l["line_number"] for l in f["lines"] if l["count"] > 0}
                if listed is not None:
                    listed.setdefault(src, set()).update(l["line_number"] for l in f["lines"])
                if ran:
                    out.setdefault(src, set()).update(ran)
    return out


def match(recorded, table):
    """The test whose command line and environment the wrapper recorded."""
    cut = recorded.index("--env--")
    argv, env = recorded[:cut], dict(l.split("=", 1) for l in recorded[cut + 1:])
    best, score = None, -1
    for t in table:
        if t["cmd"] != argv[:len(t["cmd"])] or len(argv) != len(t["cmd"]):
            continue
        agree = sum(t["env"].get(k, "") == v for k, v in env.items())
        if agree > score:
            best, score = t["name"], agree
    return best


def collect(build, root):
    build = os.path.abspath(build)
    base = os.path.join(build, "per-test")
    with open(os.path.join(base, ".tree"), encoding="utf-8") as f:
        tree = f.read().strip()
    table = json.loads(subprocess.run(["meson", "introspect", "--tests", build], stdout=subprocess.PIPE,
                                      check=True).stdout)
    log = {}
    # meson names its log after the wrapper when there is one.
    logfile = os.path.join(build, "meson-logs", "testlog-coverage_wrap.sh.json")
    if os.path.exists(logfile):
        with open(logfile, encoding="utf-8") as f:
            for line in f:
                t = json.loads(line)
                log[t["name"].split(" / ")[-1]] = t
    tests, listed = {}, {}
    merged = os.path.join(base, ".merged")
    shutil.rmtree(merged, ignore_errors=True)
    # The build directory's own counts: processes without the wrapper's
    # environment.
    own = os.path.join(base, ".own")
    shutil.rmtree(own, ignore_errors=True)
    for obj in objects(build):
        data = os.path.join(build, obj + ".gcda")
        if os.path.exists(data) and os.path.getsize(data) > 0:
            os.makedirs(os.path.join(own, os.path.dirname(obj)), exist_ok=True)
            shutil.move(data, os.path.join(own, obj + ".gcda"))
            os.symlink(os.path.abspath(os.path.join(build, obj + ".gcno")), os.path.join(own, obj + ".gcno"))
    dirs = [(None, own)] if os.path.isdir(own) else []
    for key in sorted(os.listdir(base)):
        d = os.path.join(base, key)
        if key.startswith(".") or not os.path.isfile(os.path.join(d, "cmd")):
            continue
        with open(os.path.join(d, "cmd"), encoding="utf-8") as f:
            name = match(f.read().splitlines(), table)
        if name is None:
            sys.exit("coverage_per_test.py: %s: no test has the command line in its cmd file" % d)
        dirs.append((name, d))
    for name, d in dirs:
        for dd, _, files in os.walk(d):
            for f in files:
                if f.endswith(".gcda") and os.path.getsize(os.path.join(dd, f)) == 0:
                    os.unlink(os.path.join(dd, f))
        ran = lines_run(d, root, listed)
        t = log.get(name, {}) if name else {}
        tests[name or "(unattributed)"] = {
            "seconds": round(t.get("duration", 0.0), 2), "result": t.get("result", "?"),
            "lines": {src: sorted(v) for src, v in sorted(ran.items())}}
        if not ran and not any(f.endswith(".gcda") for _, _, fs in os.walk(d) for f in fs):
            continue  # no process of the build ran (a packaging test): nothing to add
        if not os.path.isdir(merged):
            shutil.copytree(d, merged, symlinks=True)
        else:
            out = merged + ".next"
            subprocess.run(["gcov-tool", "merge", "-o", out, merged, d], check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            shutil.rmtree(merged)
            os.rename(out, merged)
    # The sum back into the build directory, for gcovr.
    if os.path.isdir(merged):
        for dd, _, files in os.walk(merged):
            for f in files:
                if f.endswith(".gcda"):
                    rel = os.path.relpath(os.path.join(dd, f), merged)
                    shutil.copyfile(os.path.join(dd, f), os.path.join(build, rel))
        shutil.rmtree(merged)
    with open(os.path.join(build, "per-test.json"), "w", encoding="utf-8") as f:
        json.dump({"tree": tree, "tests": tests,
                   "executable": {src: sorted(v) for src, v in sorted(listed.items())}}, f)
    print("coverage_per_test.py: %d tests; %d lines run only by processes without the wrapper"
          % (len(tests) - ("(unattributed)" in tests), sum(len(v) for v in tests.get("(unattributed)", {})
                                                            .get("lines", {}).values())))


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "prepare":
        prepare(sys.argv[2], os.path.abspath(sys.argv[3]))
    elif len(sys.argv) == 4 and sys.argv[1] == "collect":
        collect(sys.argv[2], os.path.abspath(sys.argv[3]))
    else:
        sys.exit(__doc__.split("\n\n")[1])


if __name__ == "__main__":
    main()
