#!/usr/bin/env python3
"""Mutation testing of the whole agent: would the tests notice a wrong line?

    tests/mutate.py [--build DIR] [--modules base,config,...] [--count N]
                    [--seed S] [--budget SECONDS] [--coverage JSON]
                    [--list] [--only FILE:LINE,...] [--doc]

Makes a copy of the source tree in DIR/src and a plain build (no
sanitizers, for speed) in DIR/build (default DIR: build-mutate in the
repository). It finds every place in the C files of every folder under
agent/ and fs/ (one module a folder, MODULES below) where one of these
mutations applies:

  relational   <  <=  >  >=  ==  !=  turned into their neighbour or negation
  logical      && and || swapped; a unary ! removed
  arithmetic   + and - swapped, << and >>, & and | (binary), += and -=,
               ++ and --
  constant     an integer literal N made N+1 (1 made 0)
  condition    an if's condition negated: if (!(...))
  statement    an expression statement (a call, an assignment) removed

then picks COUNT of them (default 600) at random, spread over the modules
by their number of places. The seed is fresh at each run (from the clock)
and printed; --seed S makes the same pick again, to reproduce a report.
The mutants run in a random order, so a run cut short by --budget (stop
starting new mutants after SECONDS) has still measured a random sample.

For each mutant: writes it into the copy, rebuilds what its module's tests
need (a mutant that does not compile is "stillborn": reported apart, not
in the score), and runs the module's tests in two tiers: the fast ones
(unit tests, the assess suite) side by side, then, when all of those pass,
the slow ones (integration tests on real Docker, FUSE, inotify), each with
a time limit (five times its time on the unmutated code, at least 20 s; 60
s for the slow tier). A mutant is killed when a test fails; it "timed out"
when a test ran out of time (reported apart: a hang the mutant caused, or
a loaded machine); it survived when all pass. With --coverage (gcovr's
coverage.json of tests/coverage.sh, run on the same tree) a mutant on an
executable line that the whole suite never ran is "not covered": it
survives without running anything, and is counted as a survivor.

The score is killed / (killed + survived); timeouts are shown apart, with
the score they would give counted either way. The report (DIR/report.md,
DIR/report.json; with --doc also tests/MUTATION.md) gives the seed, the
commit measured (and whether the tree had changes), counts per module and
every survivor's file, line and mutation. The run is niced (10).

--only FILE:LINE,... runs every mutant of those lines instead of a pick.

Excluded, because they are equivalent (the program does the same for
every input; tests/mutate-equivalent.txt says why, one entry each, and
lists single mutants shown equivalent):
  - a constant made larger in an allocation's size argument (more memory
    than needed, never read), and the first capacity or the factor of an
    array grown by doubling (`cap ? cap * 2 : N`, `cap = N;` alone);
  - the generated table of pynfkc_table.c (data, no code).
Everything else is mutated: calls that only free, close, log or lock too
(their survivors say what only a sanitizer or a race would show).
"""
import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# module -> (folder, fast tests, slow tests). Fast: the unit tests that link
# the folder's library (tests/unit/meson.build) and the layers above that
# use it most, and the assess suite; slow: the integration tests that drive
# the folder's code for real (Docker, FUSE, inotify, a mai-agent process),
# two or three a folder: a survivor of the fast tier waits for all of them.
# assess-sarif-github is left out (its .NET validator takes a minute a run
# and checks the SARIF's form, which test_assess_sarif checks too); so are
# deb and install (packaging, not the agent's code) and network (minutes
# of a local package index a run).
ASSESS_SUITE = ["assess-corpus", "assess-check-formats", "assess-check-jobs",
                "assess-compile-format", "fuzz-replay"]
MODULES = {
    "base": ("agent/base", ["dirwrite", "hash", "log", "fileio", "strmap", "yamltree", "units", "diff",
                            "subprocess", "level", "mountutil", "config", "names", "intake", "jobs",
                            "audit", "blobstore", "daemon"], ["agent_cli"]),
    "config": ("agent/config", ["config", "options", "commands", "daemon"], ["agent_reload"]),
    "drop": ("agent/drop", ["approval", "approvers", "intake", "names", "result", "watch", "daemon",
                            "daemon_trust", "daemon_bounds"], ["agent_cli", "agent_trust"]),
    "dropfs": ("agent/dropfs", [], ["dropfs", "dropfs_wait", "mount_mode"]),
    "assess": ("agent/assess", ["assess", "assess_external", "assess_origin", "assess_sarif"]
               + ASSESS_SUITE, ["examples"]),
    "py": ("agent/assess/py", ["pylex", "assess", "assess_origin"] + ASSESS_SUITE, ["examples"]),
    "docker": ("agent/docker", ["docker_codec"], ["docker", "sandbox"]),
    "sandbox": ("agent/sandbox", ["sandbox_units", "netproxy", "pep723", "pidfd_exit", "procexit"],
                ["sandbox", "sandbox_end"]),
    "audit": ("agent/audit", ["merkle", "note", "audit_event", "sidecar", "blobstore", "audit",
                              "cmd_verify", "audit_tamper", "audit_bounds", "fuzz-replay-audit"],
              ["tlog_interop", "maiaudit"]),
    "daemon": ("agent/daemon", ["daemon", "daemon_trust", "daemon_bounds", "daemon_metrics", "jobs",
                                "policy"], ["agent_cli", "agent_bounds", "agent_outage"]),
    "cmd": ("agent/cmd", ["options", "commands", "cmd_verify"], ["agent_cli"]),
    "fs": ("fs", ["view_tree", "view_content", "view_log"], ["maiaudit", "metrics"]),
}
SKIP_FILES = {"pynfkc_table.c"}
EQUIVALENT_FILE = os.path.join(ROOT, "tests", "mutate-equivalent.txt")

# A capacity's first value, alone on its line: "cap = 16;", "x->cap_items = 16;".
FIRST_SIZE = re.compile(r"\s*(?:size_t\s+)?[\w>.-]*\b(?:cap|cap_\w+|\w+_cap)\s*=\s*(\d+)[uUlL]*\s*[;,]")
ALLOCATORS = {"xmalloc", "xcalloc", "xrealloc", "xreallocarray", "malloc", "calloc", "realloc"}
# The growth of an array by doubling: "cap ? cap * 2 : N".
DOUBLING = re.compile(r"\?\s*[\w>.\[\]-]+\s*\*\s*2\s*:\s*(?:[1-9]\d*\b|[A-Z_][A-Z0-9_]*)")

TOKEN = re.compile(r"""
    (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<string>"(?:\\.|[^"\\\n])*")
  | (?P<char>'(?:\\.|[^'\\\n])*')
  | (?P<number>0[xX][0-9a-fA-F]+[uUlL]*|\d+\.\d*(?:[eE][-+]?\d+)?[fFlL]?|\d+[uUlL]*)
  | (?P<ident>[A-Za-z_]\w*)
  | (?P<op><<=|>>=|\.\.\.|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^]=|[-+*/%&|^!~<>=?:;,.(){}\[\]])
  | (?P<space>\s+)
  | (?P<other>.)
""", re.S | re.X)

KEYWORDS = {"if", "else", "for", "while", "do", "switch", "case", "default", "return", "break",
            "continue", "goto", "sizeof", "struct", "union", "enum", "static", "const", "typedef",
            "unsigned", "signed", "int", "char", "long", "short", "void", "bool", "double", "float",
            "size_t", "ssize_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t", "int64_t", "int32_t",
            "off_t", "pid_t", "extern", "inline", "volatile", "register", "_Bool", "json_t", "FILE",
            "DIR", "va_list", "time_t", "mode_t", "uid_t", "gid_t", "uintptr_t", "socklen_t"}
SWAP = {"<": ["<=", ">="], "<=": ["<", ">"], ">": [">=", "<="], ">=": [">", "<"],
        "==": ["!="], "!=": ["=="], "&&": ["||"], "||": ["&&"], "+": ["-"], "-": ["+"],
        "<<": [">>"], ">>": ["<<"], "&": ["|"], "|": ["&"], "+=": ["-="], "-=": ["+="],
        "++": ["--"], "--": ["++"]}
KIND = {"<": "relational", "<=": "relational", ">": "relational", ">=": "relational",
        "==": "relational", "!=": "relational", "&&": "logical", "||": "logical"}


def tokenize(text):
    """Significant tokens as (kind, start, end, text); preprocessor lines skipped."""
    toks, line_start = [], True
    pos = 0
    while pos < len(text):
        if line_start:
            m = re.match(r"[ \t]*#", text[pos:])
            if m:  # a preprocessor line, with its continuations
                end = pos
                while True:
                    nl = text.find("\n", end)
                    if nl < 0:
                        end = len(text)
                        break
                    if text[nl - 1] != "\\":
                        end = nl
                        break
                    end = nl + 1
                pos = end
                continue
        m = TOKEN.match(text, pos)
        kind = m.lastgroup
        if kind == "space":
            if "\n" in m.group():
                line_start = True
        elif kind != "comment":
            toks.append((kind, m.start(), m.end(), m.group()))
            line_start = False
        pos = m.end()
    return toks


def binary_context(toks, i):
    """Whether the operator at i has an operand on its left (it is binary)."""
    if i == 0:
        return False
    kind, _, _, text = toks[i - 1]
    return kind in ("ident", "number", "string", "char") and text not in KEYWORDS or text in (")", "]")


def matching(toks, i, open_, close):
    depth = 0
    for k in range(i, len(toks)):
        if toks[k][3] == open_:
            depth += 1
        elif toks[k][3] == close:
            depth -= 1
            if depth == 0:
                return k
    return None


def sites(path, text):
    """Every mutant of one file: dicts with offsets and the replacement."""
    toks = tokenize(text)
    out = []
    depth = 0
    bracket = 0
    sizes = []  # the arguments of allocations: (start, end)
    for i, (kind, start, end, tok) in enumerate(toks):
        if kind == "ident" and tok in ALLOCATORS and i + 1 < len(toks) and toks[i + 1][3] == "(":
            close = matching(toks, i + 1, "(", ")")
            if close is not None:
                sizes.append((toks[i + 1][1], toks[close][2]))
    def add(kind, start, end, new, label, larger=False):
        # A constant made larger in an allocation's size: more memory than
        # is needed, never read (equivalent; tests/mutate-equivalent.txt).
        if kind == "constant" and larger and any(a <= start < b for a, b in sizes):
            return
        line = text.count("\n", 0, start) + 1
        out.append({"file": path, "line": line, "start": start, "end": end, "new": new,
                    "kind": kind, "label": label})

    for i, (kind, start, end, tok) in enumerate(toks):
        if tok == "{":
            depth += 1
        elif tok == "}":
            depth -= 1
        elif tok == "[":
            bracket += 1
        elif tok == "]":
            bracket -= 1
        if depth == 0:
            continue  # only inside functions (and initialisers of file-scope tables)
        if kind == "op" and tok in SWAP:
            if tok in ("+", "-", "&", "|", "<", ">", "<<", ">>") and not binary_context(toks, i):
                continue
            for new in SWAP[tok]:
                add(KIND.get(tok, "arithmetic"), start, end, new, "%s -> %s" % (tok, new))
        elif kind == "op" and tok == "!" and i + 1 < len(toks) and toks[i + 1][3] != "=":
            add("logical", start, end, "", "! removed")
        elif kind == "number" and bracket == 0 and re.fullmatch(r"\d+[uUlL]*|0[xX][0-9a-fA-F]+[uUlL]*", tok):
            bol = text.rfind("\n", 0, start) + 1
            eol = text.find("\n", start)
            line_text = text[bol:eol if eol >= 0 else len(text)]
            if any(m.start() <= start - bol < m.end() for m in DOUBLING.finditer(line_text)):
                continue
            m = FIRST_SIZE.match(line_text)
            if m and m.start(1) == start - bol and int(tok.rstrip("uUlL"), 0) > 1:
                continue
            digits = re.match(r"0[xX][0-9a-fA-F]+|\d+", tok).group()
            suffix = tok[len(digits):]
            octal = len(digits) > 1 and digits[0] == "0" and digits[1] not in "xX"
            value = int(digits, 8 if octal else 0)
            new = value - 1 if value == 1 else value + 1
            hexa = digits[:2] in ("0x", "0X")
            shown = ("0%o" if octal else "0x%x" if hexa else "%d") % new
            add("constant", start, end, shown + suffix, "%s -> %s" % (tok, shown), larger=new > value)
        elif kind == "ident" and tok == "if" and i + 1 < len(toks) and toks[i + 1][3] == "(":
            close = matching(toks, i + 1, "(", ")")
            if close is None:
                continue
            a, b = toks[i + 1][2], toks[close][1]
            add("condition", a, b, "!(" + text[a:b] + ")", "if condition negated")
    # Expression statements alone on their line.
    offset = 0
    for line_text in text.splitlines(keepends=True):
        stripped = line_text.strip()
        m = re.match(r"([A-Za-z_]\w*)\s*(\(|=[^=]|->|\.|\[|\+=|-=|\|=|&=|\+\+|--)", stripped)
        if (m and stripped.endswith(";") and m.group(1) not in KEYWORDS and
                not re.match(r"[A-Za-z_]\w*\s+[*A-Za-z_]", stripped) and
                stripped.count("(") == stripped.count(")") and "{" not in stripped and "}" not in stripped):
            start = offset + line_text.index(stripped)
            add("statement", start, start + len(stripped), "(void)0;", "statement removed")
        offset += len(line_text)
    return out


def run(cmd, timeout=None, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout, **kw)


def copy_tree(dst, folders):
    """The working tree without build directories and .git, kept in step.
    The mutated folders' sources are then touched: an earlier run that was
    stopped may have left objects built from a mutant, and a copy that
    keeps the tree's times would look older than them."""
    os.makedirs(dst, exist_ok=True)
    run(["rsync", "-rlp", "--checksum", "--delete", "--exclude=/build*", "--exclude=/.git",
         "--exclude=__pycache__", ROOT + "/", dst + "/"], check=True)
    for folder in folders:
        for name in os.listdir(os.path.join(dst, folder)):
            if name.endswith(".c"):
                os.utime(os.path.join(dst, folder, name))


def test_table(build):
    out = run(["meson", "introspect", "--tests", build], check=True).stdout
    return {t["name"]: t for t in json.loads(out)}


def start_test(t):
    env = dict(os.environ)
    env["MAI_REQUIRE_REAL"] = "1"  # a test that cannot run fails, as in ./run-tests
    if "TMPDIR" not in env and os.path.isdir("/dev/shm/mai-tests"):
        env["TMPDIR"] = "/dev/shm/mai-tests"
    for k, v in t["env"].items():
        env[k] = v + os.pathsep + env.get("PATH", "") if k == "PATH" else v
    # Its own process group, so that a test's children go with it.
    return subprocess.Popen(t["cmd"], env=env, cwd=t["workdir"] or None, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)


def stop(p):
    try:
        os.killpg(p.pid, 9)
    except ProcessLookupError:
        pass
    p.wait()


def run_tests(names, table, limits):
    """Runs the tests side by side. Returns (None, times) when all pass, or
    ((name, "fail" or "timeout"), times) of the first to fail; the others
    are stopped then."""
    t0 = time.monotonic()
    procs = {n: start_test(table[n]) for n in names}
    times = {}
    failed = None
    while procs and not failed:
        time.sleep(0.05)
        now = time.monotonic() - t0
        for n, p in list(procs.items()):
            rc = p.poll()
            if rc is None:
                if now > limits.get(n, 600):
                    failed = (n, "timeout")
                continue
            del procs[n]
            times[n] = now
            if rc != 0:  # 77 too: a test that cannot run here does not pass
                failed = (n, "fail" if rc != 77 else "skipped")
    for p in procs.values():
        stop(p)
    return failed, times


def targets_of(tests, table, build):
    """The ninja targets the tests need: their programs, and mai-agent and
    maiaudit for the scripts that run them; everything (no target) when a
    test is a script, which may run any program of the build."""
    targets = {"agent/mai-agent", "fs/maiaudit"}
    for name in tests:
        exe = table[name]["cmd"][0]
        if not exe.startswith(build + "/"):
            return []
        targets.add(os.path.relpath(exe, build))
    return sorted(targets)


def load_equivalent(path):
    """Single mutants shown equivalent: 'FILE | LABEL | SOURCE LINE | why'
    lines of tests/mutate-equivalent.txt ('#' comments; class entries,
    which start with 'class:', document the classes sites() leaves out)."""
    out = {}
    if not os.path.exists(path):
        return out
    with open(path, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            line = raw.strip()
            if not line or line.startswith("#") or line.startswith("class:"):
                continue
            parts = [x.strip() for x in line.split(" | ")]
            if len(parts) != 4 or not parts[3]:
                sys.exit("%s:%d: expected 'FILE | LABEL | SOURCE LINE | why'" % (path, n))
            out[(parts[0], parts[1], parts[2])] = parts[3]
    return out


def uncovered_lines(path):
    """{file: set of executable lines the whole suite never ran} from
    gcovr's JSON (tests/coverage.sh)."""
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    out = {}
    for entry in data["files"]:
        out[entry["file"]] = {l["line_number"] for l in entry["lines"]
                              if l["count"] == 0 and not l.get("gcovr/noncode")
                              and not l.get("gcovr/excluded")}
    return out


def tree_commit():
    """The commit measured, and whether the tree differed from it."""
    head = run(["git", "-C", ROOT, "rev-parse", "HEAD"]).stdout.decode().strip()
    dirty = run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no", "--",
                 "agent", "fs", "tests"]).stdout.decode().strip()
    return head, bool(dirty)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build-mutate"))
    ap.add_argument("--modules", default=",".join(MODULES))
    ap.add_argument("--count", type=int, default=600)
    ap.add_argument("--seed", type=int, help="default: fresh from the clock, printed")
    ap.add_argument("--budget", type=float, help="seconds: start no new mutant after them")
    ap.add_argument("--coverage", help="gcovr's coverage.json of the same tree (tests/coverage.sh)")
    ap.add_argument("--list", action="store_true", help="print the picked mutants and exit")
    ap.add_argument("--only", help="FILE:LINE,...: every mutant of these lines")
    ap.add_argument("--doc", action="store_true", help="also write the report to tests/MUTATION.md")
    args = ap.parse_args()
    if args.seed is None:
        args.seed = int.from_bytes(os.urandom(4), "big")
    print("mutate.py: seed %d" % args.seed, flush=True)
    # The test table names programs by absolute path: so must the build.
    args.build = os.path.abspath(args.build)
    os.nice(10)
    modules = args.modules.split(",")
    for m in modules:
        if m not in MODULES:
            sys.exit("mutate.py: unknown module %r (known: %s)" % (m, ", ".join(MODULES)))
    equivalent = load_equivalent(EQUIVALENT_FILE)

    # Every place, per module (a folder, not its subfolders), then a random
    # pick spread by size, in a random order.
    per_module, excluded = {}, []
    for m in modules:
        folder = MODULES[m][0]
        found = []
        for name in sorted(os.listdir(os.path.join(ROOT, folder))):
            if name.endswith(".c") and name not in SKIP_FILES:
                path = os.path.join(folder, name)
                with open(os.path.join(ROOT, path), encoding="utf-8") as f:
                    text = f.read()
                lines = text.splitlines()
                for site in sites(path, text):
                    key = (path, site["label"], lines[site["line"] - 1].strip())
                    if key in equivalent:
                        excluded.append(dict(site, module=m, why=equivalent[key]))
                    else:
                        found.append(site)
        per_module[m] = found
    total = sum(len(v) for v in per_module.values())
    rng = random.Random(args.seed)
    picked = []
    for m in modules:
        want = max(1, round(args.count * len(per_module[m]) / total))
        sample = rng.sample(per_module[m], min(want, len(per_module[m])))
        for site in sample:
            site["module"] = m
        picked += sample
    if args.only:
        want = {tuple(w.rsplit(":", 1)) for w in args.only.split(",")}
        picked = [dict(site, module=m) for m in modules for site in per_module[m]
                  if (site["file"], str(site["line"])) in want]
    rng.shuffle(picked)
    if args.list:
        for site in picked:
            print("%s %s:%d %s: %s" % (site["module"], site["file"], site["line"], site["kind"], site["label"]))
        print("%d mutants of %d places" % (len(picked), total))
        return
    uncovered = uncovered_lines(args.coverage) if args.coverage else None
    commit, dirty = tree_commit()

    src, build = os.path.join(args.build, "src"), os.path.join(args.build, "build")
    print("mutate.py: %d mutants of %d places in %s; commit %s%s; copy in %s" % (
        len(picked), total, ", ".join(modules), commit[:12], " (with changes)" if dirty else "", src),
        flush=True)
    copy_tree(src, [MODULES[m][0] for m in modules])
    if not os.path.exists(os.path.join(build, "build.ninja")):
        run(["meson", "setup", build, src, "-Dbuildtype=debugoptimized", "-Db_sanitize=none"], check=True)
    table = test_table(build)
    tiers = {}
    for m in modules:
        fast = [t for t in MODULES[m][1] if t in table]
        slow = [t for t in MODULES[m][2] if t in table]
        missing = [t for t in MODULES[m][1] + MODULES[m][2] if t not in table]
        if missing:
            print("mutate.py: %s: no such test: %s" % (m, ", ".join(missing)), file=sys.stderr)
        tiers[m] = (fast, slow)
    all_tests = sorted({t for m in modules for tier in tiers[m] for t in tier})
    targets = targets_of(all_tests, table, build)
    r = run(["ninja", "-C", build] + targets)
    if r.returncode != 0:
        sys.exit("mutate.py: the unmutated tree does not build:\n" + r.stdout.decode(errors="replace")[-3000:])
    # The unmutated code must pass; its times (side by side, as the mutants
    # run) set the limits.
    limit = {}
    fast_tests = sorted({t for m in modules for t in tiers[m][0]})
    for tier, floor in ((fast_tests, 20.0), ([t for t in all_tests if t not in fast_tests], 60.0)):
        failed, times = run_tests(tier, table, {})
        if failed:
            sys.exit("mutate.py: test %s fails on the unmutated code (%s); fix that first" % failed)
        for name in tier:
            limit[name] = max(floor, 5 * times[name])
            print("  baseline %-22s %6.1f s" % (name, times[name]), flush=True)

    results = []
    t0 = time.monotonic()
    for n, site in enumerate(picked, 1):
        if args.budget and time.monotonic() - t0 > args.budget:
            print("mutate.py: the budget of %.0f s is spent: %d of %d mutants ran" % (
                args.budget, n - 1, len(picked)), flush=True)
            break
        path = os.path.join(src, site["file"])
        with open(path, encoding="utf-8") as f:
            text = f.read()
        site["source"] = text.splitlines()[site["line"] - 1].strip()
        if uncovered is not None and site["line"] in uncovered.get(site["file"], ()):
            site.update(outcome="not_covered", by=None)
        else:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text[:site["start"]] + site["new"] + text[site["end"]:])
            failed = None
            for tier in tiers[site["module"]]:
                if not tier:
                    continue
                try:
                    b = run(["ninja", "-C", build] + targets_of(tier, table, build), timeout=900)
                    built = b.returncode == 0
                except subprocess.TimeoutExpired:
                    built = False
                if not built:
                    failed = "stillborn"
                    break
                failed, _ = run_tests(tier, table, limit)
                if failed:
                    break
            if failed == "stillborn":
                site.update(outcome="stillborn", by=None)
            else:
                if not failed:
                    site.update(outcome="survived", by=None)
                else:
                    site.update(outcome="timeout" if failed[1] == "timeout" else "killed",
                                by="%s (%s)" % failed)
            with open(path, "w", encoding="utf-8") as f:  # one mutant at a time
                f.write(text)
        results.append(site)
        print("[%d/%d %5.0f s] %-11s %s:%d %s%s" % (n, len(picked), time.monotonic() - t0, site["outcome"],
              site["file"], site["line"], site["label"], " by " + site["by"] if site["by"] else ""),
              flush=True)
    run(["ninja", "-C", build] + targets)  # no object of a mutant left behind
    report(results, modules, args, len(picked), total, commit, dirty, excluded, time.monotonic() - t0)


OUTCOMES = ("killed", "survived", "not_covered", "timeout", "stillborn")


def report(results, modules, args, n_picked, total, commit, dirty, excluded, seconds):
    lines = ["# Mutation score", "",
             "`tests/mutate.py --seed %d --count %d%s%s%s` on commit `%s`%s: %d of the %d mutants picked "
             "ran in %.0f min (%d places in all)." % (
                 args.seed, args.count, " --modules " + args.modules if args.modules != ",".join(MODULES) else "",
                 " --budget %.0f" % args.budget if args.budget else "",
                 " --coverage" if args.coverage else "", commit,
                 " with uncommitted changes" if dirty else "", len(results), n_picked, seconds / 60, total),
             "",
             "Score: killed / (killed + survived + not covered); timeouts and stillborn mutants apart. "
             "Not covered: on a line the whole suite never runs (gcovr's counts of the same tree), "
             "a survivor that ran no test.",
             "",
             "| module | ran | killed | survived | not covered | timeout | stillborn | score | score, timeouts as kills |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    summary = {}
    for m in modules + ["all"]:
        rs = [r for r in results if m == "all" or r["module"] == m]
        c = {o: sum(r["outcome"] == o for r in rs) for o in OUTCOMES}
        scored = c["killed"] + c["survived"] + c["not_covered"]
        score = 100.0 * c["killed"] / scored if scored else float("nan")
        score_t = (100.0 * (c["killed"] + c["timeout"]) / (scored + c["timeout"])
                   if scored + c["timeout"] else float("nan"))
        summary[m] = dict(c, mutants=len(rs), score=score, score_timeouts_as_kills=score_t)
        lines.append("| %s | %d | %d | %d | %d | %d | %d | %.1f%% | %.1f%% |" % (
            "**all**" if m == "all" else m, len(rs), c["killed"], c["survived"], c["not_covered"],
            c["timeout"], c["stillborn"], score, score_t))
    for title, outcome in (("Survivors", "survived"), ("Not covered", "not_covered"),
                           ("Timeouts", "timeout")):
        lines += ["", "## %s" % title, ""]
        for r in sorted(results, key=lambda r: (r["file"], r["line"])):
            if r["outcome"] == outcome:
                lines.append("- %s:%d (%s) %s: `%s`%s" % (r["file"], r["line"], r["kind"], r["label"],
                                                       r["source"].replace("`", "'"),
                                                       " - " + r["by"] if r.get("by") else ""))
    lines += ["", "## Excluded as equivalent (tests/mutate-equivalent.txt)", "",
              "%d single mutants of the places found; the classes left out by construction are listed "
              "in the file's header." % len(excluded)]
    text = "\n".join(lines) + "\n"
    with open(os.path.join(args.build, "report.md"), "w", encoding="utf-8") as f:
        f.write(text)
    with open(os.path.join(args.build, "report.json"), "w", encoding="utf-8") as f:
        json.dump({"seed": args.seed, "commit": commit, "dirty": dirty, "summary": summary,
                   "mutants": results}, f, indent=1)
    if args.doc:
        with open(os.path.join(ROOT, "tests", "MUTATION.md"), "w", encoding="utf-8") as f:
            f.write(text)
    print()
    print(text)


if __name__ == "__main__":
    main()
