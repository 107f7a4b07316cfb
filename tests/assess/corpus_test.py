#!/usr/bin/env python3
"""Table-driven corpus test of the assessor.

Every file under corpus/ states in its first lines what `mai-agent check`
must answer for it:
    # expect: LEVEL            the level (LOW, MEDIUM, HIGH, BLOCKED)
    # rules: MAI001 ...        rule ids that must be among the findings
    # absent: MAI010 ...       rule ids that must not be
The whole corpus is checked in one run of the real binary (JSON output).
"""
import json
import os
import subprocess
import sys

agent = os.environ["MAI_AGENT"]
corpus = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")


def expectations(path):
    exp = {"level": None, "rules": set(), "absent": set()}
    with open(path, "rb") as f:
        for raw in f.read().split(b"\n")[:5]:
            line = raw.decode("latin-1").lstrip("\xef\xbb\xbf").strip()
            for key in ("expect", "rules", "absent"):
                tag = "# %s:" % key
                if line.startswith(tag):
                    words = line[len(tag):].split()
                    if key == "expect":
                        exp["level"] = words[0]
                    else:
                        exp[key].update(words)
    return exp


def main():
    empty = os.path.join(os.environ.get("TMPDIR", "/tmp"), "mai-corpus-noconfig-%d" % os.getpid())
    os.makedirs(empty, exist_ok=True)
    try:
        proc = subprocess.run([agent, "check", "--native-only", "--format", "json", "--config-dir", empty, corpus],
                              capture_output=True, timeout=120)
    finally:
        os.rmdir(empty)
    results = {os.path.basename(r["path"]): r for r in json.loads(proc.stdout)}
    files = sorted(f for f in os.listdir(corpus) if f.endswith(".py"))
    failures = []
    worst = "LOW"
    order = ["LOW", "MEDIUM", "HIGH", "BLOCKED"]
    for name in files:
        exp = expectations(os.path.join(corpus, name))
        if exp["level"] is None:
            failures.append("%s: no '# expect: LEVEL' line" % name)
            continue
        r = results.get(name)
        if r is None:
            failures.append("%s: not in the output" % name)
            continue
        if order.index(exp["level"]) > order.index(worst):
            worst = exp["level"]
        got = {f["rule_id"] for f in r["findings"]}
        found = ", ".join("%s@%d:%d" % (f["rule_id"], f["line"], f["col"]) for f in r["findings"])
        if r["level"] != exp["level"]:
            failures.append("%s: level %s, expected %s (findings: %s)"
                            % (name, r["level"], exp["level"], found or "none"))
        for rule in sorted(exp["rules"] - got):
            failures.append("%s: %s missing (findings: %s)" % (name, rule, found or "none"))
        for rule in sorted(exp["absent"] & got):
            failures.append("%s: %s must not fire (findings: %s)" % (name, rule, found))
    codes = {"LOW": 0, "MEDIUM": 10, "HIGH": 11, "BLOCKED": 12}
    if proc.returncode != codes[worst]:
        failures.append("exit status %d, expected %d for a worst level of %s"
                        % (proc.returncode, codes[worst], worst))
    for f in failures:
        print("FAIL " + f)
    print("%d files, %d failures" % (len(files), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
