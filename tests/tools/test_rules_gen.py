#!/usr/bin/env python3
"""The build-time generator of the built-in rules (agent/assess/assess_rules_gen.c).

    test_rules_gen.py GENERATOR assess_rules.yaml BUILT_OUTPUT.c

The build runs it once; this test runs it as a person editing the rules
file would meet it: the shipped file gives exactly the C the build
compiled in, and a mistake in the file fails with the file's line, never
with a half-written output that a later build would compile.
"""
import os
import subprocess
import sys
import tempfile

FAILED = []


def check(cond, what):
    if not cond:
        FAILED.append(what)
        print("FAIL:", what)


def gen(*args):
    r = subprocess.run([GEN] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return r.returncode, r.stderr.decode(errors="replace")


GEN, YAML, BUILT = sys.argv[1:4]
with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "out.c")
    rc, err = gen(YAML, out)
    check(rc == 0 and err == "", "the shipped rules: exit %d, %r" % (rc, err))
    with open(out, "rb") as a, open(BUILT, "rb") as b:
        text = a.read()
        check(text == b.read(), "the output differs from the build's %s" % BUILT)
    # Every rule and Bandit check of the file is in the tables, each rule
    # with the line it came from; strings are C literals (a '?' escaped,
    # no trigraph).
    with open(YAML, encoding="utf-8") as f:
        src = f.read()
    n_rules = sum(1 for l in src.splitlines() if l.startswith("  - id: MAI"))
    check(text.count(b"\t{ /* line ") == n_rules, "%d rules in the file, %d in the tables"
          % (n_rules, text.count(b"\t{ /* line ")))
    check(b"??" not in text, "a '??' left unescaped (a trigraph)")

    with open(YAML, encoding="utf-8") as f:
        lines = f.read().splitlines()

    def variant(name, edit):
        path = os.path.join(tmp, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(edit(list(lines))) + "\n")
        return path

    # A severity that does not exist: refused with the file and line, and no
    # output left for the build to compile.
    first = next(i for i, l in enumerate(lines) if l.strip() == "severity: HIGH")
    bad = variant("bad.yaml", lambda ls: ls[:first] + ["    severity: SEVERE"] + ls[first + 1:])
    out2 = os.path.join(tmp, "bad.c")
    rc, err = gen(bad, out2)
    check(rc == 1, "an unknown severity: exit %d" % rc)
    check("bad.yaml:%d:" % (first + 1) in err and "expected LOW, MEDIUM, HIGH or CRITICAL" in err,
          "the message names the file, line %d and the values allowed: %r" % (first + 1, err))
    check(not os.path.exists(out2), "an output was written for a file with a mistake")

    # A file with no rules would make an empty C array.
    start = next(i for i, l in enumerate(lines) if l == "rules:")
    norules = variant("norules.yaml", lambda ls: ls[:start] + ["rules: []"])
    rc, err = gen(norules, os.path.join(tmp, "norules.c"))
    check(rc == 1 and "no rules or no bandit_checks" in err, "no rules: exit %d, %r" % (rc, err))

    # Text outside printable ASCII goes into the C literals as octal escapes.
    msg = next(i for i, l in enumerate(lines) if l.strip().startswith("message:"))
    accented = variant("accented.yaml", lambda ls: ls[:msg] + [ls[msg].rstrip()[:-1] + ' (caf\u00e9)"']
                       + ls[msg + 1:])
    out3 = os.path.join(tmp, "accented.c")
    rc, err = gen(accented, out3)
    check(rc == 0 and b" (caf\\303\\251)\"" in (open(out3, "rb").read() if rc == 0 else b""),
          "a non-ASCII message: exit %d, %r" % (rc, err))

    # A write that fails at the end (the disk full: /dev/full through a
    # link, which is what is removed): refused, nothing left.
    full = os.path.join(tmp, "full.c")
    os.symlink("/dev/full", full)
    rc, err = gen(YAML, full)
    check(rc == 1 and "full.c: write error" in err, "a full disk: exit %d, %r" % (rc, err))
    check(not os.path.lexists(full) and os.path.exists("/dev/full"), "what a failed write left")

    rc, err = gen(YAML, os.path.join(tmp, "missing", "out.c"))
    check(rc == 1 and "missing/out.c" in err and "No such file" in err,
          "an output in a missing directory: exit %d, %r" % (rc, err))
    rc, err = gen(os.path.join(tmp, "absent.yaml"), out)
    check(rc == 1 and "absent.yaml" in err, "a missing rules file: exit %d, %r" % (rc, err))
    rc, err = gen(YAML)
    check(rc == 2 and "usage:" in err, "one argument: exit %d, %r" % (rc, err))

if FAILED:
    sys.exit("test_rules_gen: %d check(s) failed" % len(FAILED))
print("test_rules_gen: all checks passed")
