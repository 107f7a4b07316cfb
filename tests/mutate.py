#!/usr/bin/env python3
"""Mutation testing of the whole agent: would the tests notice a wrong line?

    tests/mutate.py [--build DIR] [--modules base,config,...] [--count N]
                    [--seed S] [--budget SECONDS] [--jobs N]
                    [--test-seconds S] [--pause-file PATH]
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

For each mutant: writes it into a copy of the tree, rebuilds what its
tests need (a mutant that does not compile is "stillborn"), and runs the
tests that ran its line in tests/coverage.sh's run of the same tree
(build-coverage/per-test.json), fastest first, stopping at the first that
fails ("killed"). A mutant of a declaration at file scope (an enumerator,
a table's initialiser: lines gcov does not list) runs the tests of the
lines that name what it declares; one that declares nothing a line names
(a struct member's size) is left out of the pick and listed. "Fastest"
is by the tests' own times in this run's build (the median of their
passes so far; before the first, its coverage-run time times the ratio
seen for tests of a similar coverage-run time), which are far from their
coverage-run times (a build without optimisation, many tests at a time:
from 2 to 50 times longer).
Each test has a limit of its own, three times its coverage-run time and
10 s more (once it has passed in this run, three times its longest pass
and 15 s more, when that is less); a test past it is a "timeout". A mutant no test killed
"survived" only when every test that runs its line ran and passed; when
one did not run (the next test's estimated time would take the real
time of the mutant's tests past --test-seconds, a test is longer than --max-test-seconds, left out of every
mutant, or failed on the unmutated code) it is "undecided". A line no
test runs is "not covered" (a survivor that ran nothing).

Score: killed / (killed + survived + not covered); undecided, timeouts and
stillborn mutants are reported apart, with the lower bound that counts
undecided and timeouts as survivors. The report (DIR/report.md,
DIR/report.json; with --doc also tests/MUTATION.md) gives the seed, the
commit measured, counts per module and every mutant that was not killed.
It is written after every mutant (each file replaced whole), so a run
that is killed leaves the report of what it measured; SIGTERM or SIGINT
start nothing more and write it when the mutants under way end (a second
one: at once). While --pause-file exists no new mutant or test starts
(the tests under way end; once they have, PATH.quiet is written): the
machine is quiet for a measurement, and no test's limit runs during the
pause. The run is niced (10).

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
import bisect
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.parse

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# module -> folder (not its subfolders: assess/py is a module of its own).
MODULES = {"base": "agent/base", "config": "agent/config", "drop": "agent/drop",
           "dropfs": "agent/dropfs", "assess": "agent/assess", "py": "agent/assess/py",
           "docker": "agent/docker", "sandbox": "agent/sandbox", "engine": "agent/sandbox/engine",
           "swarm": "agent/sandbox/swarm",
           "audit": "agent/audit", "daemon": "agent/daemon", "cmd": "agent/cmd", "fs": "fs"}
# Tests no mutant runs, whatever lines they run, each for minutes a run: a
# mutant on their lines that no other test kills is undecided (reported
# apart, with the lower bound that counts it as a survivor).
NOT_RUN = {
    "deb": "builds and installs the Debian package (minutes)",
    "install": "installs the package from the build (packaging)",
    "network": "minutes of a local package index a run",
    "swarm": "a three-node Docker Swarm, three to four minutes a run",
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


def file_scope(toks, i, text):
    """What the brace at toks[i], at file scope, opens: None for a
    function's body, else {"kind": "enum" | "table" | "type", "name": the
    table's name, "lines": (first, last) line of the braces}."""
    prev = toks[i - 1][3] if i else ""
    if prev == ")":
        return None
    close = matching(toks, i, "{", "}")
    last = toks[close][1] if close is not None else len(text)
    lines = (text.count("\n", 0, toks[i][1]) + 1, text.count("\n", 0, last) + 1)
    if prev == "=":  # name[...] = { ... }: the name before its brackets
        k = i - 2
        while k >= 0 and toks[k][3] == "]":
            depth = 0
            while k >= 0:
                depth += toks[k][3] == "]"
                depth -= toks[k][3] == "["
                k -= 1
                if depth == 0:
                    break
        name = toks[k][3] if k >= 0 and toks[k][0] == "ident" else ""
        return {"kind": "table", "name": name, "lines": lines}
    if "enum" in (prev, toks[i - 2][3] if i > 1 else ""):
        return {"kind": "enum", "name": "", "lines": lines}
    return {"kind": "type", "name": "", "lines": lines}


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
    # The braces at file scope that are not a function's body: an enum's,
    # a table's initialiser, a struct's definition. gcov lists none of
    # their lines, so a mutant there takes the tests of the lines that use
    # the name it defines (decl: the enumerator, the table; "" when it
    # defines none, a struct member's width), not of the lines around it.
    scope = None

    def add(kind, start, end, new, label, larger=False):
        # A constant made larger in an allocation's size: more memory than
        # is needed, never read (equivalent; tests/mutate-equivalent.txt).
        if kind == "constant" and larger and any(a <= start < b for a, b in sizes):
            return
        line = text.count("\n", 0, start) + 1
        site = {"file": path, "line": line, "start": start, "end": end, "new": new,
                "kind": kind, "label": label}
        if scope is not None:
            name = scope["name"]
            if scope["kind"] == "enum":  # the enumerator the mutant is in
                k = cur
                while k > 0 and toks[k - 1][3] not in (",", "{"):
                    k -= 1
                name = toks[k][3] if toks[k][0] == "ident" else ""
            site["decl"] = name
            site["decl_lines"] = scope["lines"]
        out.append(site)

    cur = 0
    for i, (kind, start, end, tok) in enumerate(toks):
        cur = i
        if tok == "{":
            if depth == 0:
                scope = file_scope(toks, i, text)
            depth += 1
        elif tok == "}":
            depth -= 1
            if depth == 0:
                scope = None
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


def copy_tree(dst, marker):
    """The working tree without build directories and .git, kept in step.
    marker names the file a mutant was written into while the run that
    wrote it was stopped before putting it back: that file is touched, so
    that its objects, built from the mutant, are not newer than it."""
    os.makedirs(dst, exist_ok=True)
    run(["rsync", "-rlp", "--checksum", "--delete", "--exclude=/build*", "--exclude=/.git",
         "--exclude=__pycache__", ROOT + "/", dst + "/"], check=True)
    if os.path.exists(marker):
        with open(marker, encoding="utf-8") as f:
            path = f.read().strip()
        if os.path.exists(path):
            os.utime(path)
        os.unlink(marker)


def test_table(build):
    """meson's tests by name; each runs where meson test runs it: in its
    workdir, or else the build directory (assess_rules_gen names its
    generator by a path relative to it)."""
    out = run(["meson", "introspect", "--tests", build], check=True).stdout
    return {t["name"]: dict(t, workdir=t["workdir"] or build) for t in json.loads(out)}


def start_test(t, tag, tmp, out=subprocess.DEVNULL):
    env = dict(os.environ)
    env["MAI_REQUIRE_REAL"] = "1"  # a test that cannot run fails, as in ./run-tests
    env["TMPDIR"] = tmp  # everything the test makes, for sweep()
    env["MAI_MUTATE_TAG"] = tag  # every process it starts, for sweep()
    for k, v in t["env"].items():
        env[k] = v + os.pathsep + env.get("PATH", "") if k == "PATH" else v
    # Its own process group, so that a test's children go with it.
    return subprocess.Popen(t["cmd"], env=env, cwd=t["workdir"] or None, stdout=out,
                            stderr=subprocess.STDOUT, start_new_session=True)


def docker_api(method, path):
    """A request to the local Docker engine's API; the decoded reply or None."""
    import http.client
    import socket

    class Conn(http.client.HTTPConnection):
        def connect(self):
            self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self.sock.settimeout(60)
            self.sock.connect("/var/run/docker.sock")
    try:
        c = Conn("localhost")
        c.request(method, path)
        r = c.getresponse()
        body = r.read()
        return json.loads(body) if body and r.status < 300 else None
    except (OSError, ValueError, http.client.HTTPException):
        return None


def names_in(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return {l.split(":", 1)[0] for l in f}
    except OSError:
        return set()


def snapshot():
    """The accounts, groups and network namespaces there are before a test:
    sweep() removes only those made since whose name has the test's pid."""
    ns = set(os.listdir("/run/netns")) if os.path.isdir("/run/netns") else set()
    return names_in("/etc/passwd"), names_in("/etc/group"), ns


def sweep(tag, tmp, pid, before):
    """What a test that was stopped or failed left behind, and only that:
    its processes (they carry MAI_MUTATE_TAG=tag in their environment, an
    agent that left the process group too), the FUSE mounts under its
    TMPDIR, the containers and networks of agents whose state directory was
    under it (their mai.instance label), the accounts, groups and network
    namespaces made since it started whose name has its pid (the tests name
    them with $$ or getpid()), and its TMPDIR."""
    mark = ("MAI_MUTATE_TAG=%s" % tag).encode() + b"\0"
    for _ in range(3):
        found = False
        for d in os.listdir("/proc"):
            if not d.isdigit() or int(d) == os.getpid():
                continue
            try:
                with open("/proc/%s/environ" % d, "rb") as f:
                    if mark in f.read() + b"\0":
                        os.kill(int(d), 9)
                        found = True
            except OSError:
                pass
        if not found:
            break
        time.sleep(0.2)
    mounts = []
    with open("/proc/self/mountinfo", encoding="utf-8", errors="replace") as f:
        for line in f:
            point = line.split()[4].encode().decode("unicode_escape")
            if point == tmp or point.startswith(tmp + "/"):
                mounts.append(point)
    for point in sorted(mounts, key=len, reverse=True):
        run(["umount", "-l", point])
    flt = urllib.parse.quote(json.dumps({"label": ["mai.agent=1"]}))
    for kind, listing in (("containers", "/containers/json?all=1&filters="), ("networks", "/networks?filters=")):
        for obj in docker_api("GET", listing + flt) or []:
            inst = (obj.get("Labels") or {}).get("mai.instance", "")
            # The scripts' agents: their state directory under tmp; the C
            # tests' engines: "test-PID-TIME" (tests/integration/docker_env.c).
            if inst == tmp or inst.startswith(tmp + "/") or inst.startswith("test-%d-" % pid):
                docker_api("DELETE", "/%s/%s%s" % (kind, obj["Id"], "?force=1" if kind == "containers" else ""))
    users, groups, ns = snapshot()
    for name in users - before[0]:
        if str(pid) in name:
            run(["userdel", name])
    for name in groups - before[1]:
        if str(pid) in name:
            run(["groupdel", name])
    for name in ns - before[2]:
        if str(pid) in name:
            run(["ip", "netns", "delete", name])
    shutil.rmtree(tmp, ignore_errors=True)


def abort_fuse_under(tmp):
    """Aborts the FUSE connections mounted under tmp (fusectl), so that a
    process blocked on a server that will never answer can die."""
    if not os.path.isdir("/sys/fs/fuse/connections/") or not os.listdir("/sys/fs/fuse/connections/"):
        run(["mount", "-t", "fusectl", "fusectl", "/sys/fs/fuse/connections"])
    with open("/proc/self/mountinfo", encoding="utf-8", errors="replace") as f:
        for line in f:
            fields = line.split()
            point = fields[4].encode().decode("unicode_escape")
            if point == tmp or point.startswith(tmp + "/"):
                abort = "/sys/fs/fuse/connections/%s/abort" % fields[2].split(":")[1]
                if os.path.exists(abort):
                    with open(abort, "w") as a:
                        a.write("1")


def run_test(name, table, limit, tag, tmp, log=None):
    """Runs one test: "pass", "fail" or "timeout"; whatever a test that did
    not pass left behind is swept. With log, the test's output goes there."""
    os.makedirs(tmp, exist_ok=True)
    before = snapshot()
    with open(log or os.devnull, "wb") as out:
        p = start_test(table[name], tag, tmp, out)
    try:
        rc = p.wait(timeout=limit)
        outcome = "pass" if rc == 0 else "fail"  # 77 too: a test that cannot run does not pass
    except subprocess.TimeoutExpired:
        outcome = "timeout"
    try:
        os.killpg(p.pid, 9)
    except ProcessLookupError:
        pass
    try:
        p.wait(timeout=20)
    except subprocess.TimeoutExpired:
        # Killed but stuck in D state on a request to its own FUSE mount
        # (the mutant broke the server it runs): abort those connections.
        abort_fuse_under(tmp)
        p.wait()
    if outcome != "pass":
        sweep(tag, tmp, p.pid, before)
    shutil.rmtree(tmp, ignore_errors=True)
    return outcome


def script_targets(build, table):
    """The programs a test script may run: mai-agent, maiaudit and the
    build's test helpers (tests/integration, tests/bench) that the scripts
    name."""
    out = run(["meson", "introspect", "--targets", build], check=True).stdout
    exes = [t["filename"][0] for t in json.loads(out) if t["type"] == "executable"]
    text = ""
    for d in ("tests/integration", "tests/bench"):
        for f in os.listdir(os.path.join(ROOT, d)):
            if f.endswith(".sh") or f.endswith(".py"):
                with open(os.path.join(ROOT, d, f), encoding="utf-8", errors="replace") as fh:
                    text += fh.read()
    helpers = {os.path.relpath(e, build) for e in exes
               if os.path.relpath(e, build).split("/")[1:2] in (["integration"], ["bench"])
               and os.path.basename(e) in text}
    return sorted({"agent/mai-agent", "fs/maiaudit"} | helpers)


def targets_of(name, table, build, scripts):
    """The ninja targets a test needs: its program, or for a script the
    programs scripts run."""
    exe = table[name]["cmd"][0]
    return [os.path.relpath(exe, build)] if exe.startswith(build + "/") else scripts


UNATTRIBUTED = "(a process without its test's environment)"


class PerTest:
    """Which tests run each line (build-coverage/per-test.json of
    tests/coverage.sh, for this very tree), fastest first."""

    def __init__(self, path, table):
        sys.path.insert(0, os.path.join(ROOT, "tests"))
        from coverage_per_test import tree_id
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        here = tree_id(ROOT)
        if data["tree"] != here:
            sys.exit("mutate.py: %s is of another tree (%s, this is %s): run tests/coverage.sh first"
                     % (path, data["tree"], here))
        self.tree = here
        self.seconds, self.lines, self.left_out = {}, {}, {}
        # Lines run by a process that lost its test's environment (an
        # `env -i`): which test ran them is not known.
        self.unattributed = {(src, line) for src, lines in
                             data["tests"].get("(unattributed)", {}).get("lines", {}).items()
                             for line in lines}
        for name, t in data["tests"].items():
            if name not in table:
                continue  # "(unattributed)", or a test this build lacks
            if name in NOT_RUN:
                self.left_out[name] = NOT_RUN[name]
            elif t["result"] != "OK":
                self.left_out[name] = "did not pass in the coverage run (%s)" % t["result"]
            else:
                self.seconds[name] = t["seconds"]
            for src, lines in t["lines"].items():
                for line in lines:
                    self.lines.setdefault((src, line), set()).add(name)
        if self.unattributed:
            self.left_out[UNATTRIBUTED] = ("%d lines were run by processes of tests that clear the environment "
                                           "(env -i), which tests is not known" % len(self.unattributed))
        self.executable = {src: sorted(v) for src, v in data["executable"].items()}

    def tests_of(self, src, line):
        """(tests to run fastest first, tests left out) that run the line.
        A line gcov does not list (a statement's second line) takes the
        tests of the listed lines around it."""
        ex = self.executable.get(src, [])
        i = bisect.bisect_left(ex, line)
        if i < len(ex) and ex[i] == line:
            around = [line]
        else:
            around = ex[max(i - 1, 0):i + 1]
        names = set()
        for l in around:
            names |= self.lines.get((src, l), set())
            if (src, l) in self.unattributed:
                names.add(UNATTRIBUTED)
        run_ = sorted((n for n in names if n in self.seconds), key=lambda n: (self.seconds[n], n))
        return run_, sorted(n for n in names if n not in self.seconds)

    def tests_of_site(self, site):
        """tests_of() for the mutant's line; for a mutant of a declaration
        at file scope (an enumerator, a table's initialiser: lines no test
        runs), the tests of every line of agent/ and fs/ that names what it
        declares. None when it declares nothing that a line names (a
        struct member's size): which tests depend on it is not known."""
        if "decl" not in site:
            return self.tests_of(site["file"], site["line"])
        uses = decl_uses(site)
        if not uses:
            return None
        run_, left = set(), set()
        for src, line in uses:
            r, l = self.tests_of(src, line)
            run_.update(r)
            left.update(l)
        return sorted(run_, key=lambda n: (self.seconds[n], n)), sorted(left)


def decl_uses(site):
    """The lines that name what a mutant of a declaration declares, its
    own declaration aside."""
    if not site.get("decl"):
        return []
    return [(src, line) for src, line in uses_of(site["decl"]) if not (
        src == site["file"] and site["decl_lines"][0] <= line <= site["decl_lines"][1])]


_IDENTS = {}


def uses_of(name):
    """Where the identifier name appears in the C sources of agent/ and
    fs/ (comments and strings aside): (file, line) pairs."""
    if not _IDENTS:
        for folder in sorted(set(MODULES.values())):
            for f in sorted(os.listdir(os.path.join(ROOT, folder))):
                if not f.endswith(".c"):
                    continue
                src = os.path.join(folder, f)
                with open(os.path.join(ROOT, src), encoding="utf-8") as fh:
                    text = fh.read()
                starts = [m.start() for m in re.finditer("^", text, re.M)]
                for kind, start, _, tok in tokenize(text):
                    if kind == "ident":
                        _IDENTS.setdefault(tok, set()).add((src, bisect.bisect_right(starts, start)))
    return sorted(_IDENTS.get(name, ()))


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


def tree_commit():
    """The commit measured, and whether its code or tests differed from it
    (coverage_per_test.TREE_PATHS: not the reports nor this script)."""
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    from coverage_per_test import TREE_PATHS
    head = run(["git", "-C", ROOT, "rev-parse", "HEAD"]).stdout.decode().strip()
    dirty = run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no", "--"]
                + TREE_PATHS).stdout.decode().strip()
    return head, bool(dirty)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build-mutate"))
    ap.add_argument("--modules", default=",".join(MODULES))
    ap.add_argument("--count", type=int, default=600)
    ap.add_argument("--seed", type=int, help="default: fresh from os.urandom, printed")
    ap.add_argument("--budget", type=float, help="seconds: start no new mutant after them")
    ap.add_argument("--deadline", type=float, help="seconds since the epoch: start no new mutant after it")
    ap.add_argument("--per-test", default=os.path.join(ROOT, "build-coverage", "per-test.json"),
                    help="which tests run each line (tests/coverage.sh, on this tree)")
    ap.add_argument("--test-seconds", type=float, default=60,
                    help="a mutant runs its tests until their own times (Run.estimate) add up to this")
    ap.add_argument("--max-test-seconds", type=float, default=60,
                    help="no mutant runs a test that takes longer than this (Run.estimate)")
    ap.add_argument("--jobs", type=int, default=1,
                    help="mutants at a time, each in a copy and build of its own (build-mutate/wN)")
    ap.add_argument("--reverse", action="store_true",
                    help="take the pick from its end (a second process beside one from the start)")
    ap.add_argument("--merge", help="REPORT.json,...: one report from runs of the same pick")
    ap.add_argument("--list", action="store_true", help="print the picked mutants and exit")
    ap.add_argument("--only", help="FILE:LINE,...: every mutant of these lines")
    ap.add_argument("--doc", action="store_true", help="also write the report to tests/MUTATION.md")
    ap.add_argument("--pause-file", help="while this file exists, start no new mutant and no new test "
                    "(the tests under way end; the time paused is reported and counts in no test's limit)")
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
    per_module, excluded, unmapped = {}, [], []
    for m in modules:
        folder = MODULES[m]
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
                    elif "decl" in site and not decl_uses(site):
                        unmapped.append(dict(site, module=m, why=(
                            "in a type's definition (a member's size): no line runs it and no line names it"
                            if not site["decl"] else "declares %s, which no line of agent/ or fs/ names"
                            % site["decl"])))
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
    commit, dirty = tree_commit()

    print("mutate.py: %d mutants of %d places in %s; commit %s%s; %d worker(s)" % (
        len(picked), total, ", ".join(modules), commit[:12], " (with changes)" if dirty else "", args.jobs),
        flush=True)
    if args.merge:
        merge(args, picked, modules, total, commit, dirty, excluded, unmapped)
        return
    # The copies take the validators installed in this tree (not in git):
    # without them the tests that check schemas fail under MAI_REQUIRE_REAL=1
    # on the unmutated code (assess-check-formats, tlog_interop,
    # examples_run_mount did so in a run from a fresh clone).
    if not os.path.isdir(os.path.join(ROOT, "tests", "tools", "npm", "node_modules")):
        sys.exit("mutate.py: tests/tools/npm/node_modules is missing: run packaging/install-validators.sh first")
    # Each worker has a copy of the tree and a build of its own.
    workers = []
    for w in range(args.jobs):
        base = args.build if w == 0 else os.path.join(args.build, "w%d" % w)
        workers.append(Worker(w, os.path.join(base, "src"), os.path.join(base, "build"), modules, args))
    setup = [threading.Thread(target=wk.prepare) for wk in workers]
    for t in setup:
        t.start()
    for t in setup:
        t.join()
    for wk in workers:
        if wk.error:
            sys.exit("mutate.py: " + wk.error)
    per_test = PerTest(args.per_test, workers[0].table)
    run_ = Run(args, picked, modules, total, commit, dirty, excluded, unmapped, per_test)
    for wk in workers:
        wk.run = run_
    lock = run_.lock
    queue = list(enumerate(picked, 1))
    if args.reverse:
        queue.reverse()  # another process takes the same pick from the start

    # A SIGTERM or SIGINT: start nothing more, let the mutants under way
    # end, write the report (a second one: write it and exit at once).
    def on_signal(signum, frame):
        if run_.status.startswith("stopped"):
            run_.write()
            os._exit(1)
        run_.status = "stopped by signal %d" % signum
        print("mutate.py: signal %d: no new mutant; the report follows the ones under way" % signum, flush=True)
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)

    def loop(wk):
        while True:
            run_.wait_pause()
            with lock:
                if not queue or run_.status != "running":
                    return
                if (args.budget and time.monotonic() - run_.t0 > args.budget) or \
                   (args.deadline and time.time() > args.deadline):
                    run_.status = "cut by the budget"
                    print("mutate.py: the budget or the deadline is reached", flush=True)
                    return
                n, site = queue.pop(0)
            wk.mutant(n, site, per_test, args)
            with lock:
                run_.results.append(site)
                print("[%d/%d %5.0f s w%d] %-11s %s:%d %s%s (%d of %d tests ran; %.0f s)" % (
                    n, len(picked), time.monotonic() - run_.t0, wk.wid, site["outcome"], site["file"],
                    site["line"], site["label"], " by " + site["by"] if site["by"] else "", len(site["ran"]),
                    site["tests"], site.get("seconds", 0)), flush=True)
                run_.write()

    threads = [threading.Thread(target=loop, args=(wk,)) for wk in workers]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for wk in workers:
        wk.finish()
    if run_.status == "running":
        run_.status = "done"
    run_.write(final=True)


class Run:
    """The state of a run that its report is written from: after every
    mutant (so that a run cut by a kill leaves the report of what it
    measured) and at its end."""

    def __init__(self, args, picked, modules, total, commit, dirty, excluded, unmapped, per_test):
        self.args, self.picked, self.modules, self.total = args, picked, modules, total
        self.commit, self.dirty, self.excluded, self.unmapped = commit, dirty, excluded, unmapped
        self.per_test = per_test
        self.results, self.baseline = [], {}
        self.lock = threading.Lock()
        self.t0 = time.monotonic()
        self.status = "running"
        self.paused, self.pause_since = 0.0, None
        self.observed = {}
        self.waiting = 0  # workers held by the pause file

    def observe(self, name, seconds):
        """A test's time when it passed (on a mutant or the unmutated code)."""
        with self.lock:
            self.observed.setdefault(name, []).append(seconds)

    def longest(self, name):
        """A test's longest pass in this run so far (None before its first)."""
        with self.lock:
            return max(self.observed[name]) if name in self.observed else None

    def estimate(self, name):
        """A test's own time in this build: the median of its passes so
        far; before its first, its coverage-run time times the median
        ratio of the two among at least three tests already seen whose
        coverage-run times are within a factor of three of its own (a
        unit test's ratio is not an integration test's: 0.02 against
        0.4); its coverage-run time when there are not three."""
        def median(v):
            v = sorted(v)
            return v[len(v) // 2]
        cov = self.per_test.seconds[name]
        with self.lock:
            if name in self.observed:
                return median(self.observed[name])
            ratios = [median(v) / self.per_test.seconds[n] for n, v in self.observed.items()
                      if cov / 3 <= self.per_test.seconds.get(n, 0) <= cov * 3 and self.per_test.seconds[n] > 0]
        return cov * min(1.0, median(ratios)) if len(ratios) >= 3 else cov

    def wait_pause(self):
        """While --pause-file exists, returns only when it is gone (its
        time is counted apart: no test runs during it). Once every worker
        waits (the tests under way have ended), PATH.quiet is written."""
        path = self.args.pause_file
        if not (path and os.path.exists(path) and self.status == "running"):
            return
        with self.lock:
            self.waiting += 1
        while os.path.exists(path) and self.status == "running":
            with self.lock:
                if self.pause_since is None:
                    self.pause_since = time.monotonic()
                    print("mutate.py: paused (%s exists): no new mutant or test" % path, flush=True)
                if self.waiting == self.args.jobs and not os.path.exists(path + ".quiet"):
                    with open(path + ".quiet", "w", encoding="utf-8") as f:
                        f.write(time.strftime("%H:%M:%S UTC\n", time.gmtime()))
                    print("mutate.py: quiet: no test or build of this run is running (%s.quiet)" % path,
                          flush=True)
            time.sleep(1)
        with self.lock:
            self.waiting -= 1
            if self.pause_since is not None:
                self.paused += time.monotonic() - self.pause_since
                self.pause_since = None
                print("mutate.py: resumed (%.0f s paused in all)" % self.paused, flush=True)
            if self.waiting == 0 and os.path.exists(path + ".quiet"):
                os.unlink(path + ".quiet")

    def write(self, final=False):
        order = {id(site): i for i, site in enumerate(self.picked)}
        results = sorted(self.results, key=lambda r: order[id(r)])
        report(results, self.modules, self.args, len(self.picked), self.total, self.commit, self.dirty,
               self.excluded, time.monotonic() - self.t0, self.per_test, self.baseline,
               unmapped=self.unmapped, status=self.status, paused=self.paused, final=final)


def merge(args, picked, modules, total, commit, dirty, excluded, unmapped):
    """One report from the report.json files of runs of the same pick (the
    same seed and count, on the same tree: one from the start, one with
    --reverse from the end): each mutant's first result."""
    done, seconds, baseline, tree = {}, 0.0, {}, None
    for path in args.merge.split(","):
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        if data["seed"] != args.seed or data["commit"] != commit or data.get("count", args.count) != args.count:
            sys.exit("mutate.py: %s is of another run (seed %s, count %s, commit %s)" % (
                path, data["seed"], data.get("count"), data["commit"][:12]))
        tree = tree or data.get("tree")
        if data.get("tree", tree) != tree:
            sys.exit("mutate.py: %s measured another tree" % path)
        seconds = max(seconds, data.get("seconds", 0.0))
        for name, ok in data.get("baseline", {}).items():
            baseline[name] = baseline.get(name, True) and ok
        for m in data["mutants"]:
            done.setdefault((m["file"], m["start"], m["end"], m["new"]), m)
    results = [done[k] for k in ((s["file"], s["start"], s["end"], s["new"]) for s in picked) if k in done]
    table = test_table(os.path.join(args.build, "build"))
    per_test = PerTest(args.per_test, table)
    report(results, modules, args, len(picked), total, commit, dirty, excluded, seconds, per_test, baseline,
           unmapped=unmapped)


class Worker:
    """One copy of the tree and its build, running one mutant at a time."""

    def __init__(self, wid, src, build, modules, args):
        self.wid, self.src, self.build, self.modules, self.args = wid, src, build, modules, args
        self.error = None
        self.scratch = os.path.join("/dev/shm" if os.path.isdir("/dev/shm") else "/tmp",
                                    "mai-mutate-%d-w%d" % (os.getpid(), wid))
        # A test that kills a mutant must pass on the unmutated code: checked
        # the first time it kills one, by any worker (Run.baseline: a test
        # that fails without any mutant is left out from then on, and the
        # mutant goes on to its next test).
        self.run = None

    def prepare(self):
        # The file a mutant is written into, while it is there.
        self.marker = os.path.join(os.path.dirname(self.build), "mutant-in-flight")
        copy_tree(self.src, self.marker)
        if not os.path.exists(os.path.join(self.build, "build.ninja")):
            run(["meson", "setup", self.build, self.src, "-Dbuildtype=debugoptimized", "-Db_sanitize=none"],
                check=True)
        self.table = test_table(self.build)
        self.scripts = script_targets(self.build, self.table)
        r = run(["ninja", "-C", self.build])
        if r.returncode != 0:
            self.error = "the unmutated tree does not build:\n" + r.stdout.decode(errors="replace")[-3000:]

    def finish(self):
        run(["ninja", "-C", self.build])  # no object of a mutant left behind
        shutil.rmtree(self.scratch, ignore_errors=True)

    def limit_of(self, name):
        # The test's own time on the unmutated tree (the coverage run: a
        # build without optimisation, side by side with the rest of the
        # suite), three times, and 10 s more for a loaded machine; once it
        # has passed in this run, three times its longest pass here and
        # 15 s more, when that is less (a hang is found sooner).
        limit = 3 * self.per_test.seconds[name] + 10.0
        seen = self.run.longest(name)
        return min(limit, 3 * seen + 15.0) if seen else limit

    def targets(self, name):
        return targets_of(name, self.table, self.build, self.scripts)

    def passes_unmutated(self, name, path, text, mutant_text):
        baseline = self.run.baseline
        if name not in baseline:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            ok = run(["ninja", "-C", self.build] + self.targets(name)).returncode == 0
            log = os.path.join(os.path.dirname(self.build), "baseline-%s.log" % name)
            t = time.monotonic()
            got = run_test(name, self.table, self.limit_of(name), "base-%d-w%d" % (os.getpid(), self.wid),
                           os.path.join(self.scratch, "base"), log) if ok else "does not build"
            if got == "pass":
                self.run.observe(name, time.monotonic() - t)
            baseline[name] = got == "pass"
            # Why a test fails without any mutant must be findable: its
            # outcome (a failure or its limit) and its output's end.
            tail = ""
            if got != "pass" and os.path.exists(log):
                with open(log, encoding="utf-8", errors="replace") as f:
                    tail = "".join("      | " + l for l in f.readlines()[-15:])
            verdict = "passes" if baseline[name] else "FAILS (%s, limit %.0f s; output in %s): left out\n%s" % (
                got, self.limit_of(name), log, tail)
            print("  w%d baseline %-24s %s" % (self.wid, name, verdict), flush=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(mutant_text)
            run(["ninja", "-C", self.build] + self.targets(name))
        return baseline[name]

    def mutant(self, n, site, per_test, args):
        self.per_test = per_test
        path = os.path.join(self.src, site["file"])
        with open(path, encoding="utf-8") as f:
            text = f.read()
        site["source"] = text.splitlines()[site["line"] - 1].strip()
        tests, left_out = per_test.tests_of_site(site)
        site.update(by=None, ran=[], not_run=left_out, tests=len(tests) + len(left_out))
        if not tests and not left_out:
            site["outcome"] = "not_covered"
            return
        t_start = time.monotonic()
        mutant_text = text[:site["start"]] + site["new"] + text[site["end"]:]
        with open(self.marker, "w", encoding="utf-8") as f:
            f.write(path)
        with open(path, "w", encoding="utf-8") as f:
            f.write(mutant_text)
        outcome, spent, built = "survived", 0.0, set()
        # Why a covering test did not run: a mutant that no test killed is a
        # survivor only when every test that runs its line ran and passed;
        # otherwise it is undecided (reported apart, not in the score).
        site["why_not_run"] = {n: "left out of every mutant" for n in left_out}
        # Fastest first by the tests' own times in this run's build
        # (Run.estimate): the coverage run's are of a slower build, many
        # tests at a time.
        est = {name: self.run.estimate(name) for name in tests}
        tests = sorted(tests, key=lambda name: (est[name], name))
        for i, name in enumerate(tests):
            if self.run.baseline.get(name) is False:
                site["why_not_run"][name] = "failed on the unmutated code"
                continue
            if est[name] > args.max_test_seconds:
                for t in tests[i:]:  # this one and the rest are longer still
                    site["why_not_run"].setdefault(t, "longer than %.0f s" % args.max_test_seconds)
                break
            # spent: the tests' real times so far, the next one's estimate.
            if site["ran"] and spent + est[name] > args.test_seconds:
                for t in tests[i:]:
                    site["why_not_run"].setdefault(t, "past the mutant's cap of %.0f s" % args.test_seconds)
                break
            paused = time.monotonic()
            self.run.wait_pause()  # between two tests: the machine is quiet from the test's end
            t_start += time.monotonic() - paused
            targets = tuple(self.targets(name))
            if targets not in built:
                t = time.monotonic()
                try:
                    ok = run(["ninja", "-C", self.build] + list(targets), timeout=900).returncode == 0
                except subprocess.TimeoutExpired:
                    ok = False
                site["build_seconds"] = site.get("build_seconds", 0.0) + time.monotonic() - t
                if not ok:
                    outcome = "stillborn"
                    break
                built.add(targets)
            site["ran"].append(name)
            t = time.monotonic()
            got = run_test(name, self.table, self.limit_of(name), "m%d-%d" % (n, os.getpid()),
                           os.path.join(self.scratch, "m%d" % n))
            spent += time.monotonic() - t
            site.setdefault("test_seconds", {})[name] = round(time.monotonic() - t, 1)
            if got == "pass":
                self.run.observe(name, time.monotonic() - t)
            if got != "pass" and not self.passes_unmutated(name, path, text, mutant_text):
                continue
            if got == "fail":
                outcome, site["by"] = "killed", name
                break
            if got == "timeout":
                outcome, site["by"] = "timeout", name
                break
        site["not_run"] = sorted(site["why_not_run"])
        if outcome == "survived" and site["not_run"]:
            outcome = "undecided"
        site["outcome"] = outcome
        site["seconds"] = round(time.monotonic() - t_start, 1)
        site["build_seconds"] = round(site.get("build_seconds", 0.0), 1)
        with open(path, "w", encoding="utf-8") as f:  # one mutant at a time
            f.write(text)
        os.unlink(self.marker)


OUTCOMES = ("killed", "survived", "not_covered", "undecided", "timeout", "stillborn")


def report(results, modules, args, n_picked, total, commit, dirty, excluded, seconds, per_test, baseline,
           unmapped=(), status="done", paused=0.0, final=True):
    ran_tests = sum(len(r["ran"]) for r in results)
    head = []
    if status == "running":
        head = ["**In progress: %d of the %d mutants picked have run (this report is written after each "
                "mutant; a run killed now leaves it as it is).**" % (len(results), n_picked), ""]
    elif len(results) < n_picked:
        head = ["**Only %d of the %d mutants picked ran: the run was %s.** They ran in a random order, so "
                "they are a random sample of the places too, of %d and not %d." % (
                    len(results), n_picked, status, len(results), n_picked), ""]
    lines = ["# Mutation score", ""] + head + [
             "`tests/mutate.py --seed %d --count %d%s%s --test-seconds %.0f --max-test-seconds %.0f --jobs %d` "
             "on commit `%s`%s: %d of the %d "
             "mutants picked ran in %.0f min (%d places in all; %d test runs)." % (
                 args.seed, args.count, " --modules " + args.modules if args.modules != ",".join(MODULES) else "",
                 (" --budget %.0f" % args.budget if args.budget else "") + (
                     " --deadline %.0f (%s UTC)" % (args.deadline, time.strftime("%H:%M", time.gmtime(args.deadline)))
                     if getattr(args, "deadline", None) else ""), args.test_seconds,
                 args.max_test_seconds, args.jobs, commit,
                 " with uncommitted changes" if dirty else "", len(results), n_picked, seconds / 60, total,
                 ran_tests) + (" Paused %.0f s by --pause-file (no test ran then; the minutes above "
                               "include it)." % paused if paused else ""),
             "",
             "Each mutant runs the tests that ran its line in the coverage run of the same tree "
             "(`tests/coverage.sh`, build-coverage/per-test.json, tree %s; a mutant of a declaration at file "
             "scope, an enumerator or a table, the tests of the lines that name it), fastest first by the "
             "tests' own times in this run (the median of their passes so far; before a test's first, its "
             "coverage-run time times the median ratio of the two), and stops at the first that fails. Each "
             "test has a time limit of its own: three times its time in the coverage run and 10 s more, or, "
             "once it has passed in this run, three times its longest pass here and 15 s more when that is "
             "less. A "
             "test that kills a mutant was checked to pass on the unmutated code." % per_test.tree,
             "",
             "- **killed**: a test failed. **survived**: every test that runs the line ran and passed. "
             "**not covered**: no test runs the line.",
             "- **undecided** (apart): no test that ran failed, but not every test that runs the line ran: "
             "the next test would take the mutant's tests past %.0f s of their own time (the cap), a test "
             "takes more than %.0f s, "
             "a test is left out of every mutant (below), or failed on the unmutated code. "
             "**timeout** (apart): a test ran past its limit (a hang the mutant caused, or a loaded "
             "machine). **stillborn** (apart): the mutant does not compile." % (args.test_seconds,
                                                                              args.max_test_seconds),
             "",
             "Score: killed / (killed + survived + not covered). The last column is the lower bound: "
             "undecided and timeouts counted as survivors.",
             "",
             "| module | ran | killed | survived | not covered | undecided | timeout | stillborn | score | lower bound |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    summary = {}
    for m in modules + ["all"]:
        rs = [r for r in results if m == "all" or r["module"] == m]
        c = {o: sum(r["outcome"] == o for r in rs) for o in OUTCOMES}
        scored = c["killed"] + c["survived"] + c["not_covered"]
        score = 100.0 * c["killed"] / scored if scored else float("nan")
        wide = scored + c["undecided"] + c["timeout"]
        low = 100.0 * c["killed"] / wide if wide else float("nan")
        summary[m] = dict(c, mutants=len(rs), score=score, lower_bound=low)
        lines.append("| %s | %d | %d | %d | %d | %d | %d | %d | %.1f%% | %.1f%% |" % (
            "**all**" if m == "all" else m, len(rs), c["killed"], c["survived"], c["not_covered"],
            c["undecided"], c["timeout"], c["stillborn"], score, low))
    why = {}
    for r in results:
        if r["outcome"] == "undecided":
            for reason in sorted({re.sub(r"\d+ s", "N s", w) for w in r.get("why_not_run", {}).values()}):
                why[reason] = why.get(reason, 0) + 1
    if why:
        lines += ["", "Undecided mutants by why a covering test did not run (a mutant may have several):", ""]
        lines += ["- %s: %d" % (w, n) for w, n in sorted(why.items(), key=lambda x: -x[1])]
    secs = sorted(r.get("seconds", 0.0) for r in results)
    if secs:
        build_s = sum(r.get("build_seconds", 0.0) for r in results)
        test_s = sum(sum(r.get("test_seconds", {}).values()) for r in results)
        lines += ["", "Time per mutant (one worker): mean %.1f s, median %.0f s, 90th percentile %.0f s, "
                  "longest %.0f s; of all mutants' time, %.0f%% building, %.0f%% running tests (the rest: "
                  "checking a killer on the unmutated code, sweeping)." % (
                      sum(secs) / len(secs), secs[len(secs) // 2], secs[min(len(secs) - 1, int(len(secs) * 0.9))],
                      secs[-1], 100 * build_s / max(sum(secs), 1e-9), 100 * test_s / max(sum(secs), 1e-9))]
        for o in OUTCOMES:
            os_ = [r.get("seconds", 0.0) for r in results if r["outcome"] == o]
            if os_:
                lines.append("- %s: %d, %.0f s in all, mean %.1f s" % (o, len(os_), sum(os_), sum(os_) / len(os_)))
    lines += ["", "Tests no mutant runs (a mutant that no other test kills is undecided):", ""]
    lines += ["- %s: %s" % (n, why) for n, why in sorted(per_test.left_out.items())]
    broken = sorted(n for n, ok in baseline.items() if not ok)
    if broken:
        lines += ["", "Tests that failed on the unmutated code during the run, left out from then on: "
                  + ", ".join(broken)]
    for title, outcome in (("Survivors", "survived"), ("Not covered", "not_covered"),
                           ("Undecided", "undecided"), ("Timeouts", "timeout"), ("Stillborn", "stillborn")):
        lines += ["", "## %s" % title, ""]
        for r in sorted(results, key=lambda r: (r["file"], r["line"])):
            if r["outcome"] == outcome:
                extra = ""
                if outcome == "survived":
                    extra = " - ran %d of %d tests" % (len(r["ran"]), r["tests"])
                elif outcome == "undecided":
                    extra = " - ran %d of %d tests; not run: %s" % (len(r["ran"]), r["tests"], ", ".join(
                        "%s (%s)" % (n, w) for n, w in sorted(r.get("why_not_run", {}).items())))
                elif r.get("by"):
                    extra = " - " + r["by"]
                lines.append("- %s:%d (%s) %s: `%s`%s" % (r["file"], r["line"], r["kind"], r["label"],
                                                       r["source"].replace("`", "'"), extra))
    lines += ["", "## Excluded as equivalent (tests/mutate-equivalent.txt)", "",
              "%d single mutants of the places found; the classes left out by construction are listed "
              "in the file's header." % len(excluded)]
    lines += ["- %s:%d %s: %s" % (e["file"], e["line"], e["label"], e["why"]) for e in excluded]
    lines += ["", "## Not mapped to tests, left out of the pick", "",
              "%d mutants of declarations at file scope (lines no test runs) that name nothing a line of "
              "agent/ or fs/ uses, so which tests depend on them is not known (a mutant of an enumerator or "
              "a table takes the tests of the lines that name it):" % len(unmapped)]
    lines += ["- %s:%d %s: %s" % (e["file"], e["line"], e["label"], e["why"]) for e in unmapped]
    text = "\n".join(lines) + "\n"
    # Each file whole or not at all (a kill while writing leaves the last).
    def put(path, data):
        with open(path + ".new", "w", encoding="utf-8") as f:
            f.write(data)
        os.replace(path + ".new", path)
    put(os.path.join(args.build, "report.md"), text)
    put(os.path.join(args.build, "report.json"), json.dumps({
        "seed": args.seed, "count": args.count, "commit": commit, "dirty": dirty, "tree": per_test.tree,
        "seconds": seconds, "paused": paused, "status": status, "picked": n_picked, "baseline": baseline,
        "summary": summary, "mutants": results}, indent=1))
    if args.doc:
        put(os.path.join(ROOT, "tests", "MUTATION.md"), text)
    if final:
        print()
        print(text)


if __name__ == "__main__":
    main()
