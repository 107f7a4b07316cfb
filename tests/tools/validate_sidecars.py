#!/usr/bin/env python3
"""Validate every *.result.json and *.audit under the given directories
against the JSON Schemas in schemas/, with python-jsonschema and with Ajv in
strict mode (tests/tools/ajv_validate.js, node; Ajv is skipped with a warning
when it is not installed, a failure when MAI_REQUIRE_REAL=1).  Prints each
failure as 'path: json-pointer: message' and exits 1 if any file fails or
there is no sidecar at all (a check of nothing), 0 otherwise.
Usage: validate_sidecars.py [--schemas DIR] DIR..."""
import argparse
import json
import os
import shutil
import subprocess
import sys

import jsonschema

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_SCHEMAS = os.path.join(HERE, "..", "..", "schemas")
AJV = os.path.join(HERE, "ajv_validate.js")
SCHEMA_OF = {".result.json": "result.schema.json", ".audit": "audit-sidecar.schema.json"}


def ajv_available():
    return shutil.which("node") and os.path.isdir(os.path.join(HERE, "npm", "node_modules", "ajv"))


def ajv_run(pairs):
    """Ajv's verdicts on pairs of (schema path, document path): {pair: [error
    strings]} ([] when valid), and the errors of the run itself."""
    verdicts, problems = {}, []
    # One node for all the pairs (on stdin, NUL-ended): each start of node
    # and compilation of a schema costs about a fifth of a CPU-second.
    p = subprocess.run(["node", AJV, "-"], input="".join(x + "\0" for pair in pairs for x in pair),
                       capture_output=True, text=True)
    for line in p.stdout.splitlines():
        try:
            v = json.loads(line)
            verdicts[(v["schema"], v["doc"])] = v["errors"]
        except (ValueError, KeyError, TypeError):
            problems.append("ajv: %s" % line)
    if p.returncode not in (0, 1) or any(pair not in verdicts for pair in pairs):
        problems.append("ajv: exit %d, no verdict for some files: %s" %
                        (p.returncode, p.stderr.strip()[-500:]))
    return verdicts, problems


def ajv_check(pairs):
    """Ajv (strict) on pairs of (schema path, document path): a list of error
    strings, [] when all are valid."""
    verdicts, errs = ajv_run(pairs)
    for (_schema, path), problems in sorted(verdicts.items()):
        errs += ["ajv: %s: %s" % (path, e) for e in problems]
    return errs


def load_validators(schema_dir):
    out = {}
    for suffix, name in ((".result.json", "result.schema.json"),
                         (".audit", "audit-sidecar.schema.json")):
        path = os.path.join(schema_dir, name)
        with open(path, encoding="utf-8") as f:
            schema = json.load(f)
        cls = jsonschema.validators.validator_for(schema)
        cls.check_schema(schema)
        out[suffix] = cls(schema)
    return out


def check_file(path, validator):
    """Return a list of error strings for one sidecar."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        return ["%s: not readable JSON: %s" % (path, e)]
    errs = []
    for e in sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path)):
        ptr = "/" + "/".join(str(p) for p in e.absolute_path)
        errs.append("%s: %s: %s" % (path, ptr, e.message))
    return errs


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--schemas", default=DEFAULT_SCHEMAS, help="directory holding the schemas")
    ap.add_argument("dirs", nargs="+", help="directories to search (recursively)")
    args = ap.parse_args(argv)
    validators = load_validators(args.schemas)
    n_files = n_bad = 0
    found = {suffix: [] for suffix in validators}
    for top in args.dirs:
        if not os.path.isdir(top):
            print("%s: not a directory" % top, file=sys.stderr)
            return 2
        for root, _dirs, files in os.walk(top):
            for name in sorted(files):
                for suffix, v in validators.items():
                    if name.endswith(suffix) and not name.startswith("."):
                        n_files += 1
                        found[suffix].append(os.path.join(root, name))
                        errs = check_file(os.path.join(root, name), v)
                        if errs:
                            n_bad += 1
                            print("\n".join(errs))
    if n_files == 0:
        # A check of nothing would pass: the caller expected sidecars there.
        print("validate_sidecars: no *.result.json or *.audit under %s: nothing was checked" %
              " ".join(args.dirs))
        return 1
    if not ajv_available():
        msg = "validate_sidecars: Ajv is not installed (packaging/install-validators.sh)"
        if os.environ.get("MAI_REQUIRE_REAL") == "1":
            print(msg)
            return 1
        print(msg + "; python-jsonschema only", file=sys.stderr)
    else:
        errs = ajv_check([(os.path.join(args.schemas, SCHEMA_OF[suffix]), path)
                          for suffix, paths in found.items() for path in paths])
        if errs:
            n_bad += 1
            print("\n".join(errs))
    print("validate_sidecars: %d file(s) checked, %d invalid" % (n_files, n_bad),
          file=sys.stderr)
    return 1 if n_bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
