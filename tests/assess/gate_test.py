#!/usr/bin/env python3
"""The gate's precision and recall on the repository's own corpora.

tests/assess/ordinary/ holds scripts of the kinds people drop (file and
CSV/JSON utilities, HTTP fetchers, input() tools, scrapers, games, plots,
archivers, small servers); tests/assess/malicious/ holds inert malicious
scripts, each naming its intent family on its first line. Through
tests/bench/gate.sh (the same numbers anyone gets from it), with the
shipped configuration (config/, Bandit on) and with --native-only:
    at most 5% of the ordinary scripts are held (HIGH or BLOCKED);
    every malicious script is held;
    no ordinary script that imports the Crypto package is held: Bandit's
    B413 (HIGH for that import) is judged by the native rule MAI074.
"""
import ast
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checklib import check, finish, root, skip_or_fail  # noqa: E402

ORDINARY_MAX_SHARE = 0.05
ORDINARY_MIN_FILES = 200
MALICIOUS_MIN_FILES = 60
FAMILIES = {"hidden-code", "obfuscated-names", "secrets-exfil", "download-exec", "reverse-shell",
            "persistence", "sandbox-escape", "destructive", "anti-analysis", "outside-data-exec"}
MIN_PER_FAMILY = 3

here = os.path.join(root, "tests", "assess")
ordinary = os.path.join(here, "ordinary")
malicious = os.path.join(here, "malicious")


def py_files(d):
    return sorted(f for f in os.listdir(d) if f.endswith(".py"))


def imports_crypto(name):
    """Does an ordinary script import the Crypto package (PyCrypto's name,
    which PyCryptodome shares)?"""
    with open(os.path.join(ordinary, name), "rb") as f:
        tree = ast.parse(f.read(), filename=name)
    for node in ast.walk(tree):
        mods = [a.name for a in node.names] if isinstance(node, ast.Import) else \
            [node.module or ""] if isinstance(node, ast.ImportFrom) else []
        if any(m == "Crypto" or m.startswith("Crypto.") for m in mods):
            return True
    return False


def corpus_checks():
    """The corpora are what the figures claim: enough files, all valid
    Python 3, every malicious one in a known family, every family there."""
    ords, mals = py_files(ordinary), py_files(malicious)
    check(sum(imports_crypto(n) for n in ords) >= 3,
          "fewer than 3 ordinary scripts import the Crypto package (B413's case)")
    check(len(ords) >= ORDINARY_MIN_FILES, "ordinary corpus has %d files, fewer than %d"
          % (len(ords), ORDINARY_MIN_FILES))
    check(len(mals) >= MALICIOUS_MIN_FILES, "malicious corpus has %d files, fewer than %d"
          % (len(mals), MALICIOUS_MIN_FILES))
    for d, names in ((ordinary, ords), (malicious, mals)):
        for name in names:
            with open(os.path.join(d, name), "rb") as f:
                src = f.read()
            try:
                ast.parse(src, filename=name)
            except SyntaxError as e:
                check(False, "%s: not valid Python 3: %s" % (name, e))
    per_family = {}
    for name in mals:
        with open(os.path.join(malicious, name), encoding="utf-8") as f:
            m = re.match(r"# family: (\S+)\n", f.readline())
        family = m.group(1) if m else None
        check(family in FAMILIES, "%s: first line names no known family (# family: NAME)" % name)
        per_family[family] = per_family.get(family, 0) + 1
    for fam in sorted(FAMILIES):
        check(per_family.get(fam, 0) >= MIN_PER_FAMILY, "family %s has %d scripts, fewer than %d"
              % (fam, per_family.get(fam, 0), MIN_PER_FAMILY))


def main():
    corpus_checks()
    if not shutil.which("bandit"):
        skip_or_fail("bandit is not installed (packaging/install-deps.sh installs it); "
                     "the shipped configuration runs it")
    gate = os.path.join(root, "tests", "bench", "gate.sh")
    p = subprocess.run([gate, "--json", "--timeout", "120", "--config-dir", os.path.join(root, "config"),
                        ordinary, malicious], capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        print("FAIL gate.sh exited %d: %s" % (p.returncode, p.stderr))
        return 1
    report = json.loads(p.stdout)
    for mode, run in report["runs"].items():
        o, m = run["dirs"][ordinary], run["dirs"][malicious]
        print("%s: ordinary %d/%d held (%.1f%%), malicious %d/%d held (%.1f%%), %.1f s"
              % (mode, o["held"], o["files"], 100 * o["held_share"], m["held"], m["files"],
                 100 * m["held_share"], run["seconds"]))
        check(o["files"] == len(py_files(ordinary)) and m["files"] == len(py_files(malicious)),
              "%s: gate.sh saw %d and %d files" % (mode, o["files"], m["files"]))
        if mode == "shipped":
            check(o["bandit_notes"] == 0 and m["bandit_notes"] == 0,
                  "shipped: Bandit failed or timed out on %d files; the figures are not Bandit's"
                  % (o["bandit_notes"] + m["bandit_notes"]))
        held = ", ".join("%s (%s %s)" % (f["file"], f["level"], f["reason"]) for f in o["held_files"])
        check(o["held_share"] <= ORDINARY_MAX_SHARE,
              "%s: %d of %d ordinary scripts held (%.1f%%, at most %.0f%%): %s"
              % (mode, o["held"], o["files"], 100 * o["held_share"], 100 * ORDINARY_MAX_SHARE, held))
        crypto = [f for f in o["held_files"] if imports_crypto(f["file"])]
        check(not crypto, "%s: ordinary scripts held that import the Crypto package: %s"
              % (mode, ", ".join("%s (%s %s)" % (f["file"], f["level"], f["reason"])
                                 for f in crypto)))
        free = ", ".join("%s (%s)" % (f["file"], f["level"]) for f in m["free_files"])
        check(m["held"] == m["files"], "%s: %d of %d malicious scripts not held: %s"
              % (mode, m["files"] - m["held"], m["files"], free))
    finish()


if __name__ == "__main__":
    sys.exit(main())
