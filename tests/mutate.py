#!/usr/bin/env python3
"""Mutation testing of the audit and assess code: would the tests notice a
wrong line?

    tests/mutate.py [--build DIR] [--modules audit,assess,py] [--count N]
                    [--seed S] [--list] [--only FILE:LINE,...] [--retry REPORT]

Makes a copy of the source tree in DIR/src and a plain build (no
sanitizers, for speed) in DIR/build (default DIR: build-mutate in the
repository). It finds every place in the modules' C files where one of
these mutations applies:

  relational   <  <=  >  >=  ==  !=  turned into their neighbour or negation
  logical      && and || swapped; a unary ! removed
  arithmetic   + and - swapped, << and >>, & and | (binary), += and -=,
               ++ and --
  constant     an integer literal N made N+1 (1 made 0)
  condition    an if's condition negated: if (!(...))
  statement    an expression statement (a call, an assignment) removed

then picks COUNT of them (default 300, spread over the modules by their
number of places; --seed makes another deterministic pick) and, for each
mutant: writes it into the copy, rebuilds the modules' test programs (a
mutant that does not compile is "stillborn" and not counted), and runs the
module's tests side by side, each with a time limit (five times its time on
the unmutated code, at least 20 s). A mutant is killed when a test fails
or runs out of time (the others are stopped then); it survived when all
pass. The report gives per
module the killed, survived and stillborn mutants and the score (killed /
(killed + survived)), then every survivor's file, line and mutation: a
survivor is a change no test noticed. It is written to DIR/report.md and
DIR/report.json too. The run is niced (10).

--only FILE:LINE,... runs every mutant of those lines instead of a pick;
--retry REPORT (an earlier report.json) runs again the mutants that
survived in it, found by file, mutation and source line (the line number
may have moved since): whether the tests added for them kill them now.

Not mutated, because no test of a plain build could notice:
  - calls that only free (pylex_close too), close, log, lock or wipe a
    secret (explicit_bzero): a leak or a missing lock shows only under a
    sanitizer or a race, a secret left in memory not at all; nor the
    header of a loop whose body is only such calls, nor the condition of
    an if (without else) whose body only logs (the arguments of the calls
    in it are mutated);
  - the 0 of a descriptor compared with it ("fd < 0", "x->seg_fd >= 0"),
    and < made <= (>= made >) there: 0, 1 and 2 are the standard streams,
    open in every test, so a descriptor the code holds is never 0;
  - numbers in array sizes, and the arithmetic and numbers in an
    allocation's arguments: a byte too few is written past unnoticed in
    the allocator's rounding, where a sanitizer sees it;
  - the first capacity of an array grown by doubling and its factor (the
    N and the 2 of `cap ? cap * 2 : N`, or an N > 1 given alone to a
    capacity: `cap = N;`, `x->cap_items = N;`): another positive size only
    changes when it is reallocated;
  - the generated or table-only files (pynfkc_table.c).
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

# module -> (source files under the repository, tests that exercise it)
# Every unit test linked with the module's folder (tests/unit/meson.build:
# audit_dep, assess_dep, py_dep) and the assess suite, except
# assess-sarif-github, whose .NET validator takes a minute a run and checks
# the SARIF's form, which test_assess_sarif checks too.
ASSESS_SUITE = ["assess-corpus", "assess-check-formats", "assess-check-jobs",
                "assess-compile-format", "fuzz-replay"]
MODULES = {
    "audit": ("agent/audit", ["merkle", "note", "audit_event", "sidecar", "blobstore", "audit",
                              "cmd_verify", "audit_tamper", "audit_bounds", "fuzz-replay-audit"]),
    "assess": ("agent/assess", ["assess", "assess_external", "assess_origin", "assess_sarif"]
               + ASSESS_SUITE),
    "py": ("agent/assess/py", ["pylex", "assess", "assess_origin"] + ASSESS_SUITE),
}
SKIP_FILES = {"pynfkc_table.c"}
UNOBSERVABLE_CALL = re.compile(
    r"^\s*(\w*free\w*|\w*_clear|json_decref|close|fclose|closedir|log_\w+|pthread_\w+|"
    r"\w*_unlock|\w*_lock|va_end|munmap|pylex_close|explicit_bzero)\s*\(")

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


DESCRIPTOR = re.compile(r"(?:\w+_)?fd")


def descriptor_zero(toks, i):
    """Whether toks[i] is the < or >= (or <=, >) of a descriptor compared
    with 0: "fd < 0", "log->seg_fd >= 0"."""
    return (0 < i < len(toks) - 1 and toks[i][3] in ("<", "<=", ">", ">=") and
            toks[i + 1][3] == "0" and toks[i - 1][0] == "ident" and
            DESCRIPTOR.fullmatch(toks[i - 1][3]) is not None)


def quiet_body(toks, k, allow_log):
    """The statement at toks[k] (a block, or one statement), when it only
    frees, closes or logs (UNOBSERVABLE_CALL; only a log for an if:
    allow_log): (end index, whether an else follows), else None."""
    if k >= len(toks):
        return None
    if toks[k][3] == "{":
        close = matching(toks, k, "{", "}")
        if close is None:
            return None
        stmts, start = [], k + 1
        depth = 0
        for j in range(k + 1, close):
            t = toks[j][3]
            depth += t in "([" and 1 or (t in ")]" and -1 or 0)
            if t == ";" and depth == 0:
                stmts.append((start, j))
                start = j + 1
        if start != close or not stmts:
            return None
        end = close
    else:
        j, depth = k, 0
        while j < len(toks) and not (toks[j][3] == ";" and depth == 0):
            t = toks[j][3]
            depth += t in "([" and 1 or (t in ")]" and -1 or 0)
            j += 1
        if j >= len(toks):
            return None
        stmts, end = [(k, j)], j
    for a, b in stmts:
        if toks[a][0] != "ident" or b <= a + 1 or toks[a + 1][3] != "(":
            return None
        name = toks[a][3]
        if allow_log and not name.startswith("log_"):
            return None
        if not UNOBSERVABLE_CALL.match(name + "("):
            return None
        if matching(toks, a + 1, "(", ")") != b - 1:
            return None
    return end, end + 1 < len(toks) and toks[end + 1][3] == "else"


def sites(path, text):
    """Every mutant of one file: dicts with offsets and the replacement."""
    toks = tokenize(text)
    out = []
    depth = 0
    bracket = 0
    sizes = []  # the arguments of allocations: (start, end)
    quiet = []  # loop headers and conditions whose body only frees or logs: (start, end, holes)
    for i, (kind, start, end, tok) in enumerate(toks):
        if kind == "ident" and tok in ALLOCATORS and i + 1 < len(toks) and toks[i + 1][3] == "(":
            close = matching(toks, i + 1, "(", ")")
            if close is not None:
                sizes.append((toks[i + 1][1], toks[close][2]))
        if kind == "ident" and tok in ("for", "if") and i + 1 < len(toks) and toks[i + 1][3] == "(":
            close = matching(toks, i + 1, "(", ")")
            body = quiet_body(toks, close + 1, tok == "if") if close is not None else None
            if body is not None and (tok == "for" or not body[1]):
                # The arguments of calls in it still count: they change what is done.
                holes = [(toks[j + 1][1], toks[matching(toks, j + 1, "(", ")")][2])
                         for j in range(i + 2, close)
                         if toks[j][0] == "ident" and toks[j][3] not in KEYWORDS and toks[j + 1][3] == "("]
                quiet.append((toks[i + 1][1], toks[close][2], holes))

    def add(kind, start, end, new, label):
        if kind in ("arithmetic", "constant") and any(a <= start < b for a, b in sizes):
            return
        if any(a <= start < b and not any(c <= start < d for c, d in holes) for a, b, holes in quiet):
            return
        line = text.count("\n", 0, start) + 1
        src = text.splitlines()[line - 1]
        if re.match(r"\s*log_\w+\s*\(", src):
            return
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
                if descriptor_zero(toks, i) and {tok, new} in ({"<", "<="}, {">=", ">"}):
                    continue
                add(KIND.get(tok, "arithmetic"), start, end, new, "%s -> %s" % (tok, new))
        elif kind == "op" and tok == "!" and i + 1 < len(toks) and toks[i + 1][3] != "=":
            add("logical", start, end, "", "! removed")
        elif kind == "number" and bracket == 0 and re.fullmatch(r"\d+[uUlL]*|0[xX][0-9a-fA-F]+[uUlL]*", tok):
            if descriptor_zero(toks, i - 1):
                continue
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
            add("constant", start, end, shown + suffix, "%s -> %s" % (tok, shown))
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
                not UNOBSERVABLE_CALL.match(stripped) and not re.match(r"[A-Za-z_]\w*\s+[*A-Za-z_]", stripped) and
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
    (name, "fail" or "timeout") of the first to fail; the others are
    stopped then."""
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
            if rc not in (0, 77):
                failed = (n, "fail")
    for p in procs.values():
        stop(p)
    return failed, times


def targets_of(tests, table, build):
    """The ninja targets the tests need: their programs, and mai-agent for
    the scripts that run it."""
    targets = {"agent/mai-agent"}
    for name in tests:
        exe = table[name]["cmd"][0]
        if exe.startswith(build + "/"):
            targets.add(os.path.relpath(exe, build))
    return sorted(targets)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build-mutate"))
    ap.add_argument("--modules", default="audit,assess,py")
    ap.add_argument("--count", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--list", action="store_true", help="print the picked mutants and exit")
    ap.add_argument("--only", help="FILE:LINE,...: every mutant of these lines")
    ap.add_argument("--retry", help="an earlier report.json: its survivors again")
    args = ap.parse_args()
    # The test table names programs by absolute path: so must the build.
    args.build = os.path.abspath(args.build)
    os.nice(10)
    modules = args.modules.split(",")
    for m in modules:
        if m not in MODULES:
            sys.exit("mutate.py: unknown module %r (known: %s)" % (m, ", ".join(MODULES)))

    # Every place, per module, then a deterministic pick spread by size.
    per_module = {}
    for m in modules:
        folder = MODULES[m][0]
        found = []
        for name in sorted(os.listdir(os.path.join(ROOT, folder))):
            if name.endswith(".c") and name not in SKIP_FILES:
                path = os.path.join(folder, name)
                with open(os.path.join(ROOT, path), encoding="utf-8") as f:
                    found += sites(path, f.read())
        per_module[m] = found
    total = sum(len(v) for v in per_module.values())
    rng = random.Random(args.seed)
    picked = []
    for m in modules:
        want = max(1, round(args.count * len(per_module[m]) / total))
        sample = rng.sample(per_module[m], min(want, len(per_module[m])))
        for s in sample:
            s["module"] = m
        picked += sample
    if args.only or args.retry:
        picked = []
        if args.only:
            want = {tuple(w.rsplit(":", 1)) for w in args.only.split(",")}
            for m in modules:
                for s in per_module[m]:
                    if (s["file"], str(s["line"])) in want:
                        picked.append(dict(s, module=m))
        else:
            with open(args.retry, encoding="utf-8") as f:
                old = [r for r in json.load(f)["mutants"] if r["outcome"] == "survived"]
            want = {(r["file"], r["label"], r["source"]) for r in old}
            texts = {}
            for m in modules:
                for s in per_module[m]:
                    if s["file"] not in texts:
                        with open(os.path.join(ROOT, s["file"]), encoding="utf-8") as f:
                            texts[s["file"]] = f.read().splitlines()
                    line = texts[s["file"]][s["line"] - 1].strip()
                    if (s["file"], s["label"], line) in want:
                        picked.append(dict(s, module=m))
    picked.sort(key=lambda s: (s["file"], s["start"]))
    if args.list:
        for s in picked:
            print("%s %s:%d %s: %s" % (s["module"], s["file"], s["line"], s["kind"], s["label"]))
        print("%d mutants of %d places" % (len(picked), total))
        return

    src, build = os.path.join(args.build, "src"), os.path.join(args.build, "build")
    print("mutate.py: %d mutants of %d places in %s; copy in %s" % (len(picked), total, ", ".join(modules), src))
    copy_tree(src, [MODULES[m][0] for m in modules])
    if not os.path.exists(os.path.join(build, "build.ninja")):
        run(["meson", "setup", build, src, "-Dbuildtype=debugoptimized", "-Db_sanitize=none"], check=True)
    table = test_table(build)
    tests_of = {m: [t for t in MODULES[m][1] if t in table] for m in modules}
    all_tests = sorted({t for m in modules for t in tests_of[m]})
    targets = targets_of(all_tests, table, build)
    r = run(["ninja", "-C", build] + targets)
    if r.returncode != 0:
        sys.exit("mutate.py: the unmutated tree does not build:\n" + r.stdout.decode(errors="replace")[-3000:])
    # The unmutated code must pass; its times (side by side, as the mutants
    # run) set the limits.
    failed, times = run_tests(all_tests, table, {})
    if failed:
        sys.exit("mutate.py: test %s fails on the unmutated code (%s); fix that first" % failed)
    limit = {}
    for name in all_tests:
        limit[name] = max(20.0, 5 * times[name])
        print("  baseline %-22s %6.1f s" % (name, times[name]))

    results = []
    originals = {}
    t0 = time.monotonic()
    for n, s in enumerate(picked, 1):
        path = os.path.join(src, s["file"])
        if s["file"] not in originals:
            for other, text in originals.items():  # one file mutated at a time
                with open(os.path.join(src, other), "w", encoding="utf-8") as f:
                    f.write(text)
            originals.clear()
            with open(path, encoding="utf-8") as f:
                originals[s["file"]] = f.read()
        text = originals[s["file"]]
        with open(path, "w", encoding="utf-8") as f:
            f.write(text[:s["start"]] + s["new"] + text[s["end"]:])
        tests = tests_of[s["module"]]
        try:
            b = run(["ninja", "-C", build] + targets_of(tests, table, build), timeout=600)
            built = b.returncode == 0
        except subprocess.TimeoutExpired:
            built = False
        if not built:
            outcome, by = "stillborn", None
        else:
            failed, _ = run_tests(tests, table, limit)
            outcome, by = ("killed", "%s (%s)" % failed) if failed else ("survived", None)
        s.update(outcome=outcome, by=by, source=text.splitlines()[s["line"] - 1].strip())
        results.append(s)
        print("[%d/%d %4.0f s] %-9s %s:%d %s%s" % (n, len(picked), time.monotonic() - t0, outcome,
              s["file"], s["line"], s["label"], " by " + by if by else ""), flush=True)
    for other, text in originals.items():
        with open(os.path.join(src, other), "w", encoding="utf-8") as f:
            f.write(text)
    run(["ninja", "-C", build] + targets)  # no object of a mutant left behind

    report(results, modules, args)


def report(results, modules, args):
    lines = ["# Mutation score", "",
             "`tests/mutate.py --count %d --seed %d --modules %s%s`: %d mutants." % (
                 args.count, args.seed, ",".join(modules),
                 " --only " + args.only if args.only else " --retry" if args.retry else "",
                 len(results)), "",
             "| module | mutants | killed | survived | stillborn | score |",
             "|---|---:|---:|---:|---:|---:|"]
    summary = {}
    for m in modules + ["all"]:
        rs = [r for r in results if m == "all" or r["module"] == m]
        k = sum(r["outcome"] == "killed" for r in rs)
        sv = sum(r["outcome"] == "survived" for r in rs)
        sb = sum(r["outcome"] == "stillborn" for r in rs)
        score = 100.0 * k / (k + sv) if k + sv else 100.0
        summary[m] = {"mutants": len(rs), "killed": k, "survived": sv, "stillborn": sb, "score": score}
        lines.append("| %s | %d | %d | %d | %d | %.1f%% |" % (m, len(rs), k, sv, sb, score))
    lines += ["", "## Survivors", ""]
    for r in results:
        if r["outcome"] == "survived":
            lines.append("- %s:%d (%s) %s: `%s`" % (r["file"], r["line"], r["kind"], r["label"],
                                                 r["source"].replace("`", "'")))
    text = "\n".join(lines) + "\n"
    with open(os.path.join(args.build, "report.md"), "w", encoding="utf-8") as f:
        f.write(text)
    with open(os.path.join(args.build, "report.json"), "w", encoding="utf-8") as f:
        json.dump({"summary": summary, "mutants": results}, f, indent=1)
    print()
    print(text)


if __name__ == "__main__":
    main()
