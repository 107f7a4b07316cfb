#!/usr/bin/env python3
"""`mai-agent check --format sarif` as GitHub code scanning reads it.

Microsoft's SARIF Multitool (installed from the npm registry into
tests/tools/npm by packaging/install-validators.sh) validates the log of the
examples and the assess corpus with the GitHub rule kinds and must report no
error and no warning. Then what the Multitool does not check: one run per
tool, documented security rules, full regions, fingerprints that survive
unrelated edits, and rejected or unreadable files as error results with
executionSuccessful false."""
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

from checklib import agent, check, failures, finish, root, skip_or_fail


# The .NET runtime tunes a long-running service: it counts calls to compile
# hot methods again in the background, with profiles. The Multitool runs
# for a few seconds; without that it used 3.9 instead of 5.6 CPU-seconds on
# the two largest logs here (three runs each). What it reports is the same.
DOTNET_ONE_SHOT = {"DOTNET_TC_CallCounting": "0", "DOTNET_TieredPGO": "0"}


def multitool():
    p = os.environ.get("MAI_SARIF_MULTITOOL") or os.path.join(
        root, "tests", "tools", "npm", "node_modules", "@microsoft", "sarif-multitool-linux",
        "Sarif.Multitool")
    return p if os.access(p, os.X_OK) else None


def sarif(cwd, *paths, config=None):
    args = [agent, "check", "--format", "sarif"]
    args += ["--config-dir", config] if config else ["--native-only"]
    p = subprocess.run(args + list(paths), cwd=cwd, capture_output=True, text=True, timeout=300)
    return p.returncode, json.loads(p.stdout), p.stderr


def cache_path(tool, logs, work):
    """Where the findings on exactly these logs are kept: the build
    directory's, by the SHA-256 of the Multitool's own files (its version)
    and of every label and log's bytes (the test's temporary directory, in
    the URIs of a log about files there, stands as one name). The Multitool's verdict on the same
    bytes is the same; it takes 9 of the suite's CPU-seconds (.NET), so a
    run whose logs did not change reads its findings instead. None without
    MAI_BUILD_ROOT."""
    build = os.environ.get("MAI_BUILD_ROOT")
    if not build:
        return None
    h = hashlib.sha256()
    for f in sorted(os.listdir(os.path.dirname(tool))):
        if f.endswith((".dll", ".json")) or f == os.path.basename(tool):
            h.update(f.encode() + b"\0" + str(os.path.getsize(os.path.join(os.path.dirname(tool), f))).encode())
    for label in sorted(logs):
        with open(logs[label], "rb") as f:
            text = f.read().replace(work.encode(), b"WORK")
            h.update(label.encode() + b"\0" + hashlib.sha256(text).digest())
    return os.path.join(build, "sarif-multitool-cache", h.hexdigest() + ".json")


def validate(tool, logs, work):
    """The Multitool's findings on each of logs ({label: path}), as {label:
    [(level, rule id, message)]}: one run of the Multitool for all of them,
    as its start (.NET) costs seconds; its results name the file they are
    about. Kept by cache_path() once the Multitool ran."""
    cached = cache_path(tool, logs, work)
    if cached and os.path.exists(cached):
        with open(cached) as f:
            found = {label: [tuple(x) for x in v] for label, v in json.load(f).items()}
        print("Multitool findings read from %s (the same logs were validated before)" % cached)
        return found
    found = run_multitool(tool, logs, work)
    if cached and not failures:
        os.makedirs(os.path.dirname(cached), exist_ok=True)
        with open(cached + ".tmp", "w") as f:
            json.dump(found, f)
        os.replace(cached + ".tmp", cached)
    return found


def run_multitool(tool, logs, work):
    out = os.path.join(work, "validation.sarif")
    if os.path.exists(out):
        os.unlink(out)
    p = subprocess.run([tool, "validate", "--rule-kind", "Gh;Sarif", "--level", "Error;Warning;Note",
                        "-o", out] + list(logs.values()), capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, DOTNET_CLI_TELEMETRY_OPTOUT="1", **DOTNET_ONE_SHOT))
    found = {label: [] for label in logs}
    if not os.path.exists(out):
        failures.append("the Multitool wrote no report (exit %d): %s" % (p.returncode, p.stdout[-2000:]))
        return found
    with open(out) as f:
        report = json.load(f)
    label_of = {"file://" + path: label for label, path in logs.items()}
    for run in report["runs"]:
        for r in run.get("results", []):
            uri = r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            check(uri in label_of, "a Multitool result about an unknown file: %s" % uri)
            found.get(label_of.get(uri), []).append(
                (r.get("level", "warning"), r["ruleId"], r["message"].get("text", "")))
    return found


tool = multitool()
if tool is None:
    skip_or_fail("SARIF Multitool not installed (packaging/install-validators.sh installs it)")

with tempfile.TemporaryDirectory() as work:
    # 1. The Multitool on the examples with the shipped configuration (Bandit
    # on, as a user would run it from the checkout) and on the corpus with the
    # native rules (the corpus is theirs; Bandit on 120 files only takes time).
    # Every log is written to a file of to_validate ({what: path}); the
    # Multitool runs once on all of them at the end.
    to_validate = {}
    logs = []
    for config, paths in ((os.path.join(root, "config"), ["examples/scripts"]),
                          (None, ["tests/assess/corpus"])):
        rc, log, err = sarif(root, *paths, config=config)
        logs.append(log)
        path = os.path.join(work, "check-%d.sarif" % len(logs))
        with open(path, "w") as f:
            json.dump(log, f, indent=2)
        to_validate[" ".join(paths)] = path

    names = [r["tool"]["driver"]["name"] for r in logs[0]["runs"]]
    check(names[0] == "mai-agent" and names.count("mai-agent") == 1, "one native run first: %s" % names)
    if shutil.which("bandit"):
        check("Bandit" in names and any(r["results"] for r in logs[0]["runs"][1:]),
              "Bandit's findings in a run of their own: %s" % names)
    for run in logs[0]["runs"] + logs[1]["runs"]:
        check(run["originalUriBaseIds"]["SRCROOT"]["uri"] == "file://" + root.rstrip("/") + "/",
              "SRCROOT is the working directory: %s" % run["originalUriBaseIds"])
        check(run["invocations"][0]["executionSuccessful"] is True,
              "%s succeeded on readable files" % run["tool"]["driver"]["name"])
        for rule in run["tool"]["driver"]["rules"]:
            props = rule.get("properties", {})
            for key in ("fullDescription", "help", "shortDescription"):
                check(rule.get(key, {}).get("text"), "%s has %s" % (rule["id"], key))
            check(rule["help"].get("markdown"), "%s has markdown help" % rule["id"])
            check("security" in props.get("tags", []), "%s is tagged security" % rule["id"])
            sev = float(props.get("security-severity", "-1"))
            check(0 < sev <= 10, "%s security-severity %s" % (rule["id"], sev))
        for res in run["results"]:
            loc = res["locations"][0]["physicalLocation"]
            art = loc["artifactLocation"]
            check(art.get("uriBaseId") == "SRCROOT" and not art["uri"].startswith("/"),
                  "relative artifact URI: %s" % art)
            reg = loc["region"]
            check(all(k in reg for k in ("startLine", "startColumn", "endLine", "endColumn"))
                  and (reg["endLine"], reg["endColumn"]) > (reg["startLine"], reg["startColumn"]),
                  "full region: %s %s" % (art["uri"], reg))
            check(":" in res.get("partialFingerprints", {}).get("primaryLocationLineHash", ""),
                  "fingerprint: %s" % res.get("partialFingerprints"))
    native = logs[1]["runs"][0]
    mai005 = [r for r in native["tool"]["driver"]["rules"] if r["id"] == "MAI005"]
    check(mai005 and mai005[0]["name"] == "SubprocessShellTrue"
          and "external/cwe/cwe-078" in mai005[0]["properties"]["tags"]
          and mai005[0]["helpUri"] == "https://cwe.mitre.org/data/definitions/78.html",
          "MAI005's descriptor: %s" % mai005)

    # 1b. A Semgrep run of its own: Semgrep is not a Debian package, so a
    # stand-in program prints its JSON report (tests/assess/semgrep-report.json,
    # the real format) and its version; the agent runs it as it runs Semgrep.
    fake = os.path.join(work, "semgrep")
    with open(fake, "w") as f:
        f.write('#!/bin/sh\n[ "$1" = --version ] && { echo 1.45.0; exit 0; }\ncat "%s"\n' %
                os.path.join(root, "tests", "assess", "semgrep-report.json"))
    os.chmod(fake, 0o755)
    cfg = os.path.join(work, "cfg")
    os.mkdir(cfg)
    with open(os.path.join(cfg, "security.yaml"), "w") as f:
        f.write("analyzers:\n  bandit:\n    enabled: false\n  semgrep:\n    enabled: true\n"
                "    path: %s\n" % fake)
    rc, log, err = sarif(root, "examples/scripts/high_eval.py", config=cfg)
    runs = {r["tool"]["driver"]["name"]: r for r in log["runs"]}
    sg = runs.get("Semgrep", {})
    check(sorted(runs) == ["Semgrep", "mai-agent"] and sg["tool"]["driver"].get("version") == "1.45.0"
          and {r["ruleId"] for r in sg["results"]} == {
              "python.lang.security.audit.subprocess-shell-true.subprocess-shell-true",
              "python.lang.security.audit.eval-detected.eval-detected"},
          "Semgrep's findings in a run of their own: %s" % json.dumps(log)[:1000])
    check(any(r.get("name") == "SubprocessShellTrue" and "external/cwe/cwe-078" in r["properties"]["tags"]
              for r in sg.get("tool", {}).get("driver", {}).get("rules", [])),
          "Semgrep's rule descriptor: %s" % sg.get("tool"))
    path = os.path.join(work, "semgrep.sarif")
    with open(path, "w") as f:
        json.dump(log, f)
    to_validate["the Semgrep run"] = path

    # 2. Fingerprints: unchanged by lines added above and by indentation
    # elsewhere; a second identical line is a second occurrence.
    proj = os.path.join(work, "proj")
    os.mkdir(proj)
    body = "import os\nos.system('ls')\nos.system('ls')\n"
    with open(os.path.join(proj, "a.py"), "w") as f:
        f.write(body)
    _, one, _ = sarif(proj, "a.py")
    with open(os.path.join(proj, "a.py"), "w") as f:
        f.write("# a comment\n\n\ndef unrelated():\n    return 1\n\n" + body)
    _, two, _ = sarif(proj, "a.py")

    # os.system's own rule (a literal 'ls' also gets MAI091, program named
    # without its directory, which fingerprints the same way).
    def system_calls(doc):
        return [r for r in doc["runs"][0]["results"] if r["ruleId"] == "MAI001"]

    def prints(doc):
        return [(r["ruleId"], r["partialFingerprints"]["primaryLocationLineHash"])
                for r in system_calls(doc)]

    check(prints(one) == prints(two) and len(prints(one)) == 2, "stable fingerprints: %s / %s" %
          (prints(one), prints(two)))
    check(len(set(prints(one))) == 2 and prints(one)[1][1].endswith(":2"),
          "same line twice: occurrences 1 and 2: %s" % prints(one))
    lines = [r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in system_calls(two)]
    check(lines == [8, 9], "regions follow the moved lines: %s" % lines)

    # 3. A rejected file and one that cannot be read (a FIFO) are error
    # results, and the run did not succeed; the log stays valid.
    with open(os.path.join(proj, "bad.py"), "wb") as f:
        f.write(b"x = 1\ny = '\xff'\n")
    os.mkfifo(os.path.join(proj, "pipe.py"))
    rc, doc, err = sarif(proj, "bad.py", "pipe.py", "a.py")
    check(rc == 2, "an unreadable file exits 2: %d" % rc)
    res = doc["runs"][0]["results"]
    by_rule = {r["ruleId"]: r for r in res}
    rej = by_rule.get("MAI900")
    check(rej and rej["level"] == "error" and rej["locations"][0]["physicalLocation"]["region"]["startLine"] == 2
          and rej["locations"][0]["physicalLocation"]["region"]["startColumn"] == 6,
          "rejected file as an error result at its bad byte: %s" % rej)
    unr = by_rule.get("MAI901")
    check(unr and unr["level"] == "error" and "not a regular file" in unr["message"]["text"]
          and unr["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "pipe.py",
          "unreadable file as an error result: %s" % unr)
    check(doc["runs"][0]["invocations"][0]["executionSuccessful"] is False,
          "executionSuccessful false when a file was not assessed")
    path = os.path.join(work, "bad.sarif")
    with open(path, "w") as f:
        json.dump(doc, f)
    to_validate["the rejected/unreadable log"] = path

    # 4. The Multitool (GitHub rules) on every log above: no error and no
    # warning.
    for what, found in validate(tool, to_validate, work).items():
        bad = [x for x in found if x[0] in ("error", "warning")]
        check(not bad, "Multitool (GitHub rules) on %s: %d errors and warnings, first: %s" %
              (what, len(bad), bad[:5]))
        print("Multitool on %s: %d errors, %d warnings, %d notes" % (
            what, sum(x[0] == "error" for x in bad), sum(x[0] == "warning" for x in bad),
            len(found) - len(bad)))

finish()
