#!/usr/bin/env python3
"""`mai-agent check` end to end: the exact text format (location, level,
rule ids, source line and caret), JSON, SARIF 2.1.0 validated against the
official schema, exit statuses by level, and the error statuses."""
import json
import os
import subprocess
import sys
import tempfile

from checklib import agent, check, failures, finish, root, skip_or_fail, skip_part


def run(*args):
    return subprocess.run([agent, "check", *args], capture_output=True, text=True, timeout=60)


def schema_path():
    # The SARIF 2.1.0 schema as Microsoft's SARIF Multitool ships it
    # (packaging/install-validators.sh installs it into tests/tools/npm).
    p = os.path.join(root, "tests", "tools", "npm", "node_modules", "@microsoft",
                     "sarif-multitool-linux", "sarif-2.1.0.json")
    return p if os.path.exists(p) else None


with tempfile.TemporaryDirectory() as d:
    cfg = os.path.join(d, "cfg")
    os.mkdir(cfg)
    bad = os.path.join(d, "bad dir")
    os.mkdir(bad)
    hi = os.path.join(bad, "spawn.py")
    with open(hi, "w") as f:
        f.write("import subprocess, sys\n\nsubprocess.run(sys.argv[1], shell=True)\n"
                "subprocess.run(['/bin/ls'])\n")
    low = os.path.join(d, "low.py")
    with open(low, "w") as f:
        f.write("print(1)\n")
    med = os.path.join(d, "med.py")
    with open(med, "w") as f:
        f.write("open('out.txt', 'w').write('x')\n")
    blk = os.path.join(d, "blk.py")
    with open(blk, "wb") as f:
        f.write(b"x = 1\n\xff\n")

    p = run("--native-only", "--config-dir", cfg, hi)
    check(p.returncode == 11, "HIGH exits 11, got %d" % p.returncode)
    # Each finding about a call says where its arguments come from; the
    # pile of findings stays under BLOCKED (79.9), the worst one decides.
    want = (
        "%s:1:8: note: imports a process-spawning module [MAI008/B404]\n"
        "%s:3:12: warning: subprocess call with shell=True: the command goes through the shell"
        " (arguments: from outside the script; contained: it runs inside the same sandbox, without capabilities, on a read-only root) [MAI005/B602]\n"
        "%s:3:12: warning: starts a process with subprocess (arguments: from outside the script; contained: it runs inside the same sandbox, without capabilities, on a read-only root) [MAI006/B603]\n"
        "%s:3:12: error: a shell command built from data from outside the script (what is typed, arguments, files,"
        " the environment, the network) (arguments: from outside the script) [MAI103]\n"
        "%s:4:12: warning: starts a process with subprocess (arguments: literal; contained: it runs inside the same sandbox, without capabilities, on a read-only root) [MAI006/B603]\n"
        "%s: note: held (HIGH) because of line 3: a shell command built from data from outside the"
        " script (what is typed, arguments, files, the environment, the network) (arguments: from outside the script) [MAI103]\n"
        "%s: level HIGH, score 79.9, 5 findings, 4 lines\n" % (hi, hi, hi, hi, hi, hi, hi))
    check(p.stdout == want, "text output (a pipe: no source lines):\n%s\nexpected:\n%s" % (p.stdout, want))
    p = run("--native-only", "--config-dir", cfg, "--context", "always", hi)
    want_ctx = (
        "%s:1:8: note: imports a process-spawning module [MAI008/B404]\n"
        "    1 | import subprocess, sys\n"
        "      |        ^\n"
        "%s:3:12: warning: subprocess call with shell=True: the command goes through the shell"
        " (arguments: from outside the script; contained: it runs inside the same sandbox, without capabilities, on a read-only root) [MAI005/B602]\n"
        "    3 | subprocess.run(sys.argv[1], shell=True)\n"
        "      |            ^\n"
        "%s:3:12: warning: starts a process with subprocess (arguments: from outside the script; contained: it runs inside the same sandbox, without capabilities, on a read-only root) [MAI006/B603]\n"
        "    3 | subprocess.run(sys.argv[1], shell=True)\n"
        "      |            ^\n"
        "%s:3:12: error: a shell command built from data from outside the script (what is typed, arguments, files,"
        " the environment, the network) (arguments: from outside the script) [MAI103]\n"
        "    3 | subprocess.run(sys.argv[1], shell=True)\n"
        "      |            ^\n"
        "%s:4:12: warning: starts a process with subprocess (arguments: literal; contained: it runs inside the same sandbox, without capabilities, on a read-only root) [MAI006/B603]\n"
        "    4 | subprocess.run(['/bin/ls'])\n"
        "      |            ^\n"
        "%s: note: held (HIGH) because of line 3: a shell command built from data from outside the"
        " script (what is typed, arguments, files, the environment, the network) (arguments: from outside the script) [MAI103]\n"
        "%s: level HIGH, score 79.9, 5 findings, 4 lines\n" % (hi, hi, hi, hi, hi, hi, hi))
    check(p.stdout == want_ctx, "text output with --context always:\n%s\nexpected:\n%s" % (p.stdout, want_ctx))
    check(run("--context", "sometimes", hi).returncode == 2, "unknown --context exits 2")

    check(run("--config-dir", cfg, low).returncode == 0, "LOW exits 0")
    check(run("--config-dir", cfg, med).returncode == 10, "MEDIUM exits 10")
    p = run("--config-dir", cfg, blk)
    check(p.returncode == 12, "rejected file exits 12")
    check("%s:2:1: error: rejected at byte 6: invalid UTF-8" % blk in p.stdout
          and p.stdout.split("\n")[0].endswith("the file is BLOCKED and not assessed [MAI900]") and "%s: level BLOCKED" % blk in p.stdout, "rejection text: " + p.stdout)
    # A FIFO is refused at once instead of waiting for a writer.
    fifo = os.path.join(d, "pipe.py")
    os.mkfifo(fifo)
    p = run("--config-dir", cfg, fifo)
    check(p.returncode == 2 and "pipe.py: cannot read: not a regular file" in p.stderr,
          "a FIFO exits 2 at once: %d %s" % (p.returncode, p.stderr))
    os.unlink(fifo)
    # A name that is not UTF-8 keeps its path in the JSON, escaped.
    odd = os.path.join(d.encode(), b"odd\xffname.py")
    with open(odd, "w") as f:
        f.write("print(1)\n")
    p = subprocess.run([agent, "check", "--native-only", "--config-dir", cfg, "--format", "json", odd],
                       capture_output=True, timeout=60)
    docs = json.loads(p.stdout)
    check(p.returncode == 0 and docs[0].get("path") == d + "/odd\\xffname.py" and docs[0].get("path_escaped") is True,
          "non-UTF-8 path in JSON: %s" % docs)
    os.unlink(odd)
    p = run("--config-dir", cfg, os.path.join(d, "missing.py"))
    check(p.returncode == 2 and "missing.py: cannot read: No such file or directory" in p.stderr,
          "unreadable exits 2 with the path: %d %s" % (p.returncode, p.stderr))
    with open(os.path.join(cfg, "security.yaml"), "w") as f:
        f.write("rules:\n  - {id: MAI001, weight: lots}\n")
    p = run("--config-dir", cfg, low)
    check(p.returncode == 3 and "security.yaml:2:26: bad weight; expected a number from 0 to 100" in p.stderr,
          "bad config exits 3 with a position: %d %s" % (p.returncode, p.stderr))
    os.unlink(os.path.join(cfg, "security.yaml"))
    check(run("--format", "xml", low).returncode == 2, "unknown format exits 2")
    p = subprocess.run([agent, "check", "--help"], capture_output=True, text=True)
    check(p.returncode == 0 and "12 BLOCKED" in p.stdout and "10 the worst is MEDIUM" in p.stdout,
          "--help documents the exit statuses")

    p = run("--native-only", "--config-dir", cfg, "--format", "json", d)
    docs = json.loads(p.stdout)
    check([os.path.basename(x["path"]) for x in docs] == ["spawn.py", "blk.py", "low.py", "med.py"],
          "directory walk order: %s" % [x["path"] for x in docs])
    check(p.returncode == 12, "worst level decides the exit status")
    spawn = docs[0]
    check(spawn["level"] == "HIGH" and spawn["findings"][1]["bandit_id"] == "B602"
          and spawn["findings"][1]["line"] == 3 and spawn["metrics"]["lines"] == 4,
          "json fields: %s" % spawn)
    # contained findings count MEDIUM (40, 44 with outside arguments); the
    # shell fed sys.argv is intent (MAI103, 70 x 1.1) and says why it holds
    check([f.get("origin") for f in spawn["findings"]] == [None, "outside", "outside", "outside", "literal"]
          and abs(spawn["findings"][1]["score"] - 44.0) < 0.01
          and spawn["findings"][1].get("contained") == "process"
          and spawn["findings"][3]["rule_id"] == "MAI103" and "contained" not in spawn["findings"][3]
          and abs(spawn["findings"][3]["score"] - 77.0) < 0.01
          and abs(spawn["findings"][4]["score"] - 40.0) < 0.01
          and spawn.get("reason", "").startswith("line 3: a shell command built from data"),
          "json origins and their weights: %s" % spawn["findings"])
    check(docs[1]["rejection_offset"] == 6, "json rejection offset")
    # Each element is the assessment that result.json embeds (plus its path).
    import jsonschema
    with open(os.path.join(root, "schemas", "result.schema.json")) as f:
        result_schema = json.load(f)
    assessment = dict(result_schema, **{"$ref": "#/$defs/assessment"})
    assessment.pop("required", None)
    assessment.pop("properties", None)
    assessment.pop("additionalProperties", None)
    assessment.pop("allOf", None)
    for doc in docs:
        jsonschema.validate({k: v for k, v in doc.items() if k != "path"}, assessment)

    p = run("--native-only", "--config-dir", cfg, "--format", "sarif", d)
    sarif = json.loads(p.stdout)
    res = sarif["runs"][0]["results"]
    # spawn.py's five findings, blk.py's rejection (MAI900), med.py's write
    check(sarif["version"] == "2.1.0" and len(res) == 7, "sarif results: %d" % len(res))
    check(res[1]["properties"].get("origin") == "outside"
          and res[1]["properties"].get("contained") == "process"
          and res[1]["message"]["text"].endswith("(arguments: from outside the script%s)." % '; contained: it runs inside the same sandbox, without capabilities, on a read-only root')
          and res[4]["properties"].get("origin") == "literal" and "origin" not in res[0]["properties"],
          "sarif origins: %s" % [(r["properties"], r["message"]) for r in res[:4]])
    loc = res[1]["locations"][0]["physicalLocation"]
    check(loc["artifactLocation"]["uri"].endswith("bad%20dir/spawn.py") and loc["region"]["startLine"] == 3
          and loc["region"]["startColumn"] == 12 and res[1]["ruleId"] == "MAI005" and res[1]["level"] == "warning"
          and res[3]["ruleId"] == "MAI103" and res[3]["level"] == "error",
          "sarif location: %s" % res[1])
    schema = schema_path()
    if schema is None:
        msg = ("SARIF schema not found in tests/tools/npm (packaging/install-validators.sh "
               "installs it with the SARIF Multitool)")
        skip_part(msg)
    else:
        import jsonschema
        with open(schema) as f:
            sarif_schema = json.load(f)
        jsonschema.validate(sarif, sarif_schema)
        # with Bandit's findings merged in (when installed), still valid SARIF
        p = run("--config-dir", cfg, "--format", "sarif", d)
        jsonschema.validate(json.loads(p.stdout), sarif_schema)

finish()
