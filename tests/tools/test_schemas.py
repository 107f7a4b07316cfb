#!/usr/bin/env python3
"""The schemas are valid JSON Schemas, a well-formed result and sidecar pass,
and hand-made bad ones are refused with the failing field named."""
import copy
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

import jsonschema

HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMAS = os.path.join(HERE, "..", "..", "schemas")
VALIDATE = os.path.join(HERE, "validate_sidecars.py")

GOOD_RESULT = {
    "schema_version": 1, "agent_version": "0.1.0", "file": "three.py",
    "sha256": "ab" * 32, "size": 21, "state": "completed", "verdict": "exited",
    "exit_code": 3, "message": "three.py exited with code 3.",
    "times": {"accepted": "2026-11-22T08:00:00.000Z", "finished": "2026-11-22T08:00:01.250Z"},
    "assessment": {"level": "LOW", "score": 0, "findings": []},
    "decision": {"action": "run", "by": "policy"},
    "writer": {"uid": 1001, "gid": 1001, "from": "request", "pid": 4242, "process": "vim", "user": "alice"},
    "execution": {
        "verdict": "exited", "exit_code": 3, "signal": None,
        "stdout": {"text": "", "bytes_kept": 0, "bytes": 0, "truncated": False},
        "stderr": {"text": "boom\n", "bytes_kept": 5, "bytes": 5, "truncated": False},
        "wall_ms": 412, "cpu_ms": 35, "peak_memory_bytes": 9437184, "pids_peak": 2,
        "limits": {"memory_bytes": 536870912, "nano_cpus": 1000000000, "pids": 128,
                   "tmpfs_bytes": 67108864, "nofile": 256, "fsize_bytes": 67108864,
                   "timeout_ms": 30000, "stdout_max": 1048576, "stderr_max": 1048576},
        "trust": "trusted", "runtime": "runc", "image": "mai-sandbox:latest",
        "image_id": "sha256:" + "01" * 32, "docker_version": "20.10.24", "cgroup_version": 2,
        "message": "the script exited with code 3",
    },
    "audit": {"seqs": [4, 5, 6], "entry_hash": "cd" * 32, "checkpoint_size": 7},
}
GOOD_AUDIT = {
    "format": "mai-audit-sidecar/1",
    "checkpoint": "mai-agent/example\n7\nq83vEjRWeJCrze8SNFZ4kKvN7xI0VniQq83vEjRWeJA=\n\n\u2014 mai-agent/example AAAAAA==\n",
    "records": [{"seq": 4, "record": None, "proof": ["ef" * 32]}],
}

# A record line as audit_format.h lays it out: the entry hash is the RFC 6962
# leaf hash of the bytes from offset 65 on, as the schema's description says.
_LEAF = "00" * 32 + " 000000000004 000000000007 " + '{"fields":{},"seq":4,"time":"2026-11-22T08:00:00.000Z","type":"job_accepted"}'
GOOD_AUDIT["records"][0]["record"] = hashlib.sha256(b"\x00" + _LEAF.encode()).hexdigest() + " " + _LEAF
assert GOOD_AUDIT["records"][0]["record"][65:] == _LEAF

fails = 0
skipped_parts = []  # checks that could not run: the test exits 77 (SKIP)


def expect(cond, what):
    global fails
    if not cond:
        fails += 1
        print("FAIL:", what)


def load(name):
    with open(os.path.join(SCHEMAS, name), encoding="utf-8") as f:
        return json.load(f)


def errors(schema, doc):
    v = jsonschema.validators.validator_for(schema)(schema)
    found = [(list(e.absolute_path), e.message) for e in v.iter_errors(doc)]
    AJV_CASES.append((schema, doc, not found))
    return found


# Every document given to errors() is also given to Ajv in strict mode, which
# must agree on valid or not (the schemas are read by both kinds of tools).
AJV_CASES = []
sys.path.insert(0, HERE)
import validate_sidecars  # noqa: E402  (beside this file)


def ajv_agrees():
    if not (shutil.which("node") and os.path.isdir(os.path.join(HERE, "npm", "node_modules", "ajv"))):
        msg = "Ajv is not installed (packaging/install-validators.sh)"
        expect(os.environ.get("MAI_REQUIRE_REAL") != "1", msg)
        print("SKIP part: " + msg)
        skipped_parts.append(msg)
        return
    with tempfile.TemporaryDirectory() as d:
        pairs, cases = [], []
        for name in ("result.schema.json", "audit-sidecar.schema.json"):
            schema = load(name)
            mine = [(doc, valid) for s, doc, valid in AJV_CASES if s == schema]
            for i, (doc, valid) in enumerate(mine):
                pairs.append((os.path.join(SCHEMAS, name), os.path.join(d, "%s.%d.json" % (name, i))))
                cases.append((doc, valid))
                with open(pairs[-1][1], "w") as f:
                    json.dump(doc, f)
            expect(len(mine) >= 2, "Ajv saw %d documents of %s" % (len(mine), name))
        # One node for both schemas.
        verdicts, problems = validate_sidecars.ajv_run(pairs)
        expect(not problems, "Ajv strict: %s" % problems)
        for pair, (doc, valid) in zip(pairs, cases):
            got = verdicts.get(pair)
            expect(got is not None and (got == []) == valid,
                   "Ajv says %s for %s, python-jsonschema the opposite" %
                   (got, json.dumps(doc)[:200]))


def main():
    rs, aus = load("result.schema.json"), load("audit-sidecar.schema.json")
    for s in (rs, aus):
        jsonschema.validators.validator_for(s).check_schema(s)
    expect(errors(rs, GOOD_RESULT) == [], "good result refused: %s" % errors(rs, GOOD_RESULT))
    expect(errors(aus, GOOD_AUDIT) == [], "good sidecar refused: %s" % errors(aus, GOOD_AUDIT))

    bad = copy.deepcopy(GOOD_RESULT); bad["state"] = "finished"
    e = errors(rs, bad)
    expect(any(p == ["state"] and "is not one of" in m for p, m in e), "state enum not enforced: %s" % e)
    bad = copy.deepcopy(GOOD_RESULT); del bad["file"]
    e = errors(rs, bad)
    expect(any("'file' is a required property" in m for _p, m in e), "missing file accepted: %s" % e)
    bad = copy.deepcopy(GOOD_RESULT); bad["state"] = "blocked"; del bad["message"]; del bad["verdict"]; del bad["exit_code"]
    e = errors(rs, bad)
    expect(any("'message' is a required property" in m for _p, m in e), "blocked without message accepted: %s" % e)
    bad = copy.deepcopy(GOOD_RESULT); bad["assessment"]["level"] = "low"
    expect(errors(rs, bad) != [], "lower-case level accepted")
    bad = copy.deepcopy(GOOD_RESULT); bad["extra"] = 1
    expect(errors(rs, bad) != [], "unknown top-level key accepted")
    # A finding says where its call's arguments come from (or nothing).
    finding = {"rule_id": "MAI001", "bandit_id": "B605", "severity": "HIGH", "confidence": "HIGH",
               "cwe": 78, "line": 2, "col": 4, "message": "starts a process through the shell",
               "source": "mai", "score": 77.0, "origin": "outside"}
    good = copy.deepcopy(GOOD_RESULT)
    good["assessment"].update(level="HIGH", score=77.0, findings=[finding, dict(finding, origin="literal")],
                              notes=["t.py:3:1: unexpected indent (Python will refuse to run this file)"])
    expect(errors(rs, good) == [], "a finding with its origin refused: %s" % errors(rs, good))
    nocall = {k: v for k, v in finding.items() if k != "origin"}
    good["assessment"]["findings"] = [nocall]
    expect(errors(rs, good) == [], "a finding without an origin refused: %s" % errors(rs, good))
    bad = copy.deepcopy(good); bad["assessment"]["findings"] = [dict(finding, origin="argv")]
    e = errors(rs, bad)
    expect(any(p[-1:] == ["origin"] and "is not one of" in m for p, m in e), "origin 'argv' accepted: %s" % e)

    # The execution object is held to what agent/sandbox/sandbox_result.c writes.
    def bad_execution(change, path, words, what):
        bad = copy.deepcopy(GOOD_RESULT)
        change(bad)
        e = errors(rs, bad)
        expect(any(p[:len(path)] == path and words in m for p, m in e),
               "%s accepted (want %s at %s): %s" % (what, words, path, e))
    bad_execution(lambda d: d["execution"].pop("limits"), ["execution"],
                  "'limits' is a required property", "execution without limits")
    bad_execution(lambda d: d["execution"].update(verdict="crashed"), ["execution", "verdict"],
                  "is not one of", "unknown execution verdict")
    bad_execution(lambda d: d["execution"]["stdout"].update(truncated="no"),
                  ["execution", "stdout", "truncated"], "is not of type 'boolean'",
                  "truncated flag as a string")
    bad_execution(lambda d: d["execution"].update(wall_ms=-1), ["execution", "wall_ms"],
                  "less than the minimum", "negative wall time")
    bad_execution(lambda d: d["execution"]["limits"].update(memory_bytes="512m"),
                  ["execution", "limits", "memory_bytes"], "is not of type 'integer'",
                  "a limit as a size string")
    bad_execution(lambda d: d["execution"].update(trust="LOW"), ["execution", "trust"],
                  "is not one of", "a level where the trust level belongs")
    bad_execution(lambda d: d["execution"].update(cgroup_version=3), ["execution", "cgroup_version"],
                  "is not one of", "cgroup version 3")
    bad_execution(lambda d: d["execution"].update(verdict="timeout", exit_code=None),
                  [], "is not valid under any of the given schemas",
                  "execution verdict that differs from the top-level verdict")
    bad_execution(lambda d: d.pop("execution"), [], "'execution' is a required property",
                  "completed without execution")
    bad_execution(lambda d: d.update(state="blocked", verdict=None) or d.pop("verdict")
                  or d.pop("exit_code"), ["state"], "was expected", "execution on a blocked file")

    # The writer: who wrote the content, and where the agent learnt it.
    good = copy.deepcopy(GOOD_RESULT); good["writer"] = {"uid": 0, "gid": 0, "from": "file_owner"}
    expect(errors(rs, good) == [], "writer known from the file's owner refused: %s" % errors(rs, good))
    bad = copy.deepcopy(GOOD_RESULT); bad["writer"]["from"] = "guess"
    e = errors(rs, bad)
    expect(any(p == ["writer", "from"] and "is not one of" in m for p, m in e),
           "writer.from outside its enum accepted: %s" % e)
    bad = copy.deepcopy(GOOD_RESULT); del bad["writer"]["gid"]
    e = errors(rs, bad)
    expect(any(p == ["writer"] and "'gid' is a required property" in m for p, m in e),
           "writer without gid accepted: %s" % e)
    bad = copy.deepcopy(GOOD_RESULT); bad["writer"]["pid"] = 0
    expect(errors(rs, bad) != [], "writer pid 0 accepted")

    bad = copy.deepcopy(GOOD_AUDIT); bad["records"][0]["proof"] = ["xyz"]
    expect(errors(aus, bad) != [], "non-hex proof accepted")

    # The checker over a directory: names the file and the field, exits 1.
    # A directory without a sidecar is a failure too: nothing was checked.
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "x.py"), "w") as f:
            f.write("print(1)\n")
        p = subprocess.run([sys.executable, VALIDATE, d], capture_output=True, text=True)
        expect(p.returncode == 1 and "nothing was checked" in p.stdout,
               "validator passed a directory without sidecars: exit %d %s" % (p.returncode, p.stdout))
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "ok.result.json"), "w") as f:
            json.dump(GOOD_RESULT, f)
        with open(os.path.join(d, "ok.audit"), "w") as f:
            json.dump(GOOD_AUDIT, f)
        p = subprocess.run([sys.executable, VALIDATE, d], capture_output=True, text=True)
        expect(p.returncode == 0, "validator refused good files: %s" % p.stdout)
        bad = copy.deepcopy(GOOD_RESULT); bad["state"] = "finished"
        with open(os.path.join(d, "bad.result.json"), "w") as f:
            json.dump(bad, f)
        p = subprocess.run([sys.executable, VALIDATE, d], capture_output=True, text=True)
        expect(p.returncode == 1, "validator exit %d on a bad file" % p.returncode)
        expect(os.path.join(d, "bad.result.json") + ": /state: 'finished' is not one of" in p.stdout,
               "validator output does not name file and field: %r" % p.stdout)
    ajv_agrees()
    if fails:
        return 1
    if skipped_parts:
        print("SKIP: the other checks passed; not run: " + "; ".join(skipped_parts))
        return 77
    print("test_schemas: all checks passed (python-jsonschema and Ajv strict)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
