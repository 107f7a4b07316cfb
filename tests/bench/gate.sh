#!/bin/sh
# How much of a set of scripts the gate holds: for each directory (its *.py
# files, searched recursively) the share that `mai-agent check` puts at HIGH
# or BLOCKED, once with the shipped configuration (config/ of this checkout:
# security.yaml's rules and thresholds, Bandit when it is installed) and
# once with --native-only, and for each the reasons: the finding that
# decided each held file's level, how many files it held, a few of them.
# Point it at your own scripts to see what the gate would stop.
#
# Usage: tests/bench/gate.sh [options] DIR...
#   --agent PATH       mai-agent to run (default: $MAI_AGENT, else
#                      build-release/agent/mai-agent, else
#                      build-asan/agent/mai-agent, else mai-agent in PATH)
#   --config-dir DIR   configuration (default: config/ of this checkout)
#   --timeout S        deadline of each mai-agent run (default 300): the run
#                      and everything it started are killed, and the script
#                      fails, when it is not done by then
#   --list held|free   also list every held (or every not held) file, with
#                      its level and reason
#   --json             one JSON document instead of the text (the suite's
#                      gate test reads it)
# Exit status: 0, or 2 on a usage error, a failed or timed-out run.
#
# The reason of a held file is the finding the level came from: the rule
# named in the result's "reason" when the assessor gives one, else the
# finding with the highest score (the level is decided by the worst
# finding; the others only order scripts within a level), "MAI900" for a
# file rejected unread. Findings from Bandit are shown as "B322 (bandit)".
# A run takes a second or two per hundred files with Bandit's resident
# workers (`mai-agent check` keeps one per thread), a few milliseconds
# per hundred without.
set -eu

root=$(cd "$(dirname "$0")/../.." && pwd)
exec python3 - "$root" "$@" <<'PY'
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

root = sys.argv[1]
args = sys.argv[2:]


def usage(msg):
    sys.stderr.write("gate.sh: %s\nUsage: tests/bench/gate.sh [--agent PATH] [--config-dir DIR] "
                     "[--timeout S] [--list held|free] [--json] DIR...\n" % msg)
    sys.exit(2)


agent = config = None
timeout = 300.0
listing = None
as_json = False
dirs = []
i = 0
while i < len(args):
    a = args[i]
    if a in ("--agent", "--config-dir", "--timeout", "--list"):
        if i + 1 >= len(args):
            usage("%s needs a value" % a)
        v = args[i + 1]
        i += 2
        if a == "--agent":
            agent = v
        elif a == "--config-dir":
            config = v
        elif a == "--list":
            if v not in ("held", "free"):
                usage("--list takes held or free")
            listing = v
        else:
            try:
                timeout = float(v)
            except ValueError:
                usage("--timeout takes seconds")
            if timeout <= 0:
                usage("--timeout takes seconds")
        continue
    if a == "--json":
        as_json = True
    elif a in ("-h", "--help"):
        with open(os.path.join(root, "tests", "bench", "gate.sh")) as f:
            for line in f.read().split("\n")[1:]:
                if not line.startswith("#"):
                    break
                print(line[2:])
        sys.exit(0)
    elif a.startswith("-"):
        usage("unknown option %s" % a)
    else:
        dirs.append(a)
    i += 1
if not dirs:
    usage("name at least one directory")
for d in dirs:
    if not os.path.isdir(d):
        usage("%s is not a directory" % d)

if agent is None:
    agent = os.environ.get("MAI_AGENT")
if agent is None:
    for cand in ("build-release/agent/mai-agent", "build-asan/agent/mai-agent"):
        if os.access(os.path.join(root, cand), os.X_OK):
            agent = os.path.join(root, cand)
            break
if agent is None:
    agent = shutil.which("mai-agent")
if agent is None or not os.access(agent, os.X_OK):
    usage("no mai-agent found; build one or pass --agent")
if config is None:
    config = os.path.join(root, "config")


def check(native_only):
    """One `mai-agent check --format json` over every directory; the
    results by path. The run gets its own process group so that a deadline
    kills Bandit's processes with it."""
    argv = [agent, "check", "--format", "json", "--config-dir", config]
    if native_only:
        argv.append("--native-only")
    argv += dirs
    t = time.monotonic()
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        sys.stderr.write("gate.sh: %s did not finish within %g s; killed\n" % (" ".join(argv), timeout))
        sys.exit(2)
    # 0, 10, 11, 12: the worst level; anything else is a failure
    if p.returncode not in (0, 10, 11, 12):
        sys.stderr.write("gate.sh: %s exited %d:\n%s" % (" ".join(argv), p.returncode,
                                                         err.decode(errors="replace")))
        sys.exit(2)
    return json.loads(out), time.monotonic() - t


def reason(r):
    """The finding a held file's level came from, as a short label and its
    message: the assessor's own "reason" ("line N: MESSAGE [RULE]") when
    the result has one, else the finding with the highest score."""
    if r.get("rejection"):
        return "MAI900", "rejected unread: " + r["rejection"]
    stated = re.search(r"\[([A-Z]+[0-9]+)[^\]]*\]", r.get("reason") or "")
    found = [f for f in r["findings"] if stated and f["rule_id"] == stated.group(1)]
    if not found and not r["findings"]:
        return "(none)", r.get("reason") or "no finding listed"
    f = found[0] if found else max(r["findings"], key=lambda f: f["score"])  # the first of equals
    label = f["rule_id"] if f.get("source", "mai") == "mai" else "%s (%s)" % (f["rule_id"], f["source"])
    return label, f["message"]


def owner(path):
    """The directory given on the command line that a result's path is in."""
    best = None
    for d in dirs:
        prefix = d.rstrip("/") + "/"
        if path.startswith(prefix) and (best is None or len(d) > len(best)):
            best = d
    return best


def summarize(results):
    per = {d: {"files": 0, "held": 0, "levels": {}, "reasons": {}, "held_files": [],
               "free_files": [], "bandit_notes": 0} for d in dirs}
    for r in results:
        s = per[owner(r["path"])]
        s["files"] += 1
        s["levels"][r["level"]] = s["levels"].get(r["level"], 0) + 1
        if any(n.startswith("bandit:") for n in r.get("notes", [])):
            s["bandit_notes"] += 1
        name = os.path.relpath(r["path"], owner(r["path"]))
        if r["level"] in ("HIGH", "BLOCKED"):
            s["held"] += 1
            label, message = reason(r)
            e = s["reasons"].setdefault(label, {"files": 0, "message": message, "examples": []})
            e["files"] += 1
            e["examples"].append(name)
            s["held_files"].append({"file": name, "level": r["level"], "reason": label})
        else:
            s["free_files"].append({"file": name, "level": r["level"]})
    for s in per.values():
        s["held_share"] = s["held"] / s["files"] if s["files"] else 0.0
    return per


bandit = shutil.which("bandit")
bandit_version = None
if bandit:
    v = subprocess.run([bandit, "--version"], capture_output=True, text=True, timeout=60).stdout.split()
    bandit_version = v[1] if len(v) > 1 else "?"
report = {"agent": agent, "config_dir": config, "bandit": bandit_version, "runs": {}}
for mode, native in (("shipped", False), ("native-only", True)):
    results, secs = check(native)
    report["runs"][mode] = {"seconds": round(secs, 2), "dirs": summarize(results)}

if as_json:
    json.dump(report, sys.stdout, indent=1)
    print()
    sys.exit(0)

print("mai-agent: %s\nconfiguration: %s\nBandit: %s" % (agent, config,
      bandit_version or "not installed (the shipped run is the native analyzer alone)"))
for mode, run in report["runs"].items():
    title = "shipped configuration" + (" (Bandit on)" if bandit_version else "") \
        if mode == "shipped" else "--native-only"
    print("\n== %s, %.1f s" % (title, run["seconds"]))
    width = max(len(d) for d in dirs)
    for d, s in run["dirs"].items():
        levels = "  ".join("%s %d" % (l, s["levels"][l]) for l in ("LOW", "MEDIUM", "HIGH", "BLOCKED")
                           if l in s["levels"])
        print("%-*s %5d files  held %4d (%5.1f%%)   %s" % (width, d, s["files"], s["held"],
                                                       100 * s["held_share"], levels))
        if mode == "shipped" and bandit_version and s["bandit_notes"]:
            print("%-*s   %d file(s) have a note that Bandit failed or timed out" % (width, "", s["bandit_notes"]))
    for d, s in run["dirs"].items():
        if s["held"]:
            print("  why %s's held files are held (the finding that decided the level):" % d)
        for label, e in sorted(s["reasons"].items(), key=lambda kv: (-kv[1]["files"], kv[0])):
            more = ", ..." if len(e["examples"]) > 3 else ""
            msg = e["message"] if len(e["message"]) <= 60 else e["message"][:57] + "..."
            print("    %-18s %4d  %s  [%s%s]" % (label, e["files"], msg, ", ".join(e["examples"][:3]), more))
        if listing:
            key = "held_files" if listing == "held" else "free_files"
            print("  %s files of %s:" % ("held" if listing == "held" else "not held", d))
            for f in s[key]:
                print("    %-8s %s%s" % (f["level"], f["file"], "  " + f["reason"] if "reason" in f else ""))
PY
