#!/usr/bin/env python3
"""The command lines of mai-agent and maiaudit that need neither Docker nor
a mount: help, version, and every refusal of bad arguments or unusable
input, each with its exit status (mai-agent --help lists them: 2 usage or
unreadable input, 3 invalid configuration) and a message that says what is
wrong and what to do. Table-driven: one row a case.

Environment (set by meson): MAI_AGENT, MAIAUDIT.
"""
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile

AGENT = os.environ["MAI_AGENT"]
MAIAUDIT = os.environ["MAIAUDIT"]
COMMANDS = ["run", "check", "submit", "verify", "approve", "override", "pending", "status",
            "config", "keygen"]


def cases(t):
    """(program, arguments, exit status, stream, regex) rows; t is the temp dir."""
    agent = [
        ([], 2, "err", r"^Usage: mai-agent \[--version\] \[--help\] COMMAND"),
        (["--version"], 0, "out", r"^mai-agent \d+\.\d+\.\d+\n$"),
        (["-V"], 0, "out", r"^mai-agent \d+\.\d+\.\d+\n$"),
        (["help"], 0, "out", r"Commands:\n(  \w+ +.*\n){9}"),
        (["bogus"], 2, "err", r"unknown command 'bogus'; run 'mai-agent --help' for the list"),
        # approve and override
        (["approve"], 2, "err", r"approve: expected exactly one FILE; see 'mai-agent approve --help'"),
        (["approve", "a.py", "b.py"], 2, "err", r"approve: expected exactly one FILE"),
        (["override", "x.py"], 2, "err", r"override: --reason TEXT is required and must not be empty"),
        (["override", "--reason", "", "x.py"], 2, "err", r"--reason TEXT is required"),
        (["approve", "notes.txt"], 2, "err", r"approve: notes.txt is not a script the agent runs \(a \.py"),
        (["approve", t + "/none.py"], 2, "err", r"approve: cannot read .*/none\.py: .*drop it again"),
        (["approve", "--bogus", "x.py"], 2, "err", r"Usage: mai-agent approve FILE"),
        (["approve", "-c", t + "/badconf", t + "/ok.py"], 3, "err", r"agent\.yaml:1:\d+: .*workers"),
        # pending
        (["pending", "extra"], 2, "err", r"pending takes no arguments \('extra'\); see 'mai-agent pending --help'"),
        (["pending", "--bogus"], 2, "err", r"Usage: mai-agent pending"),
        (["pending", "-c", t + "/badconf"], 3, "err", r"agent\.yaml:1:\d+: .*workers"),
        (["pending", "--config-dir", t + "/nodrop"], 2, "err",
         r"pending: cannot read the drop directory .*/no/such/drop \(agent\.drop_dir in .*/nodrop/agent\.yaml"),
        # a drop directory with a script that has no answer yet, and a subdirectory
        (["pending", "--config-dir", t + "/calm"], 0, "out", r"\Anothing is held in .*/calmdrop\n\Z"),
        # approving a script the agent has not answered: what is known is
        # shown, and with no terminal to confirm on, nothing is written
        (["approve", "--config-dir", t + "/calm", t + "/calmdrop/b.py"], 2, "out",
         r"\A.*/calmdrop/b\.py\n  sha256 [0-9a-f]{64}, 9 bytes, written by root \(uid 0\)\n"
         r"  no answer of the agent for this content \(the agent has not answered this script yet\)"),
        (["approve", "--config-dir", t + "/calm", t + "/calmdrop/b.py"], 2, "err",
         r"approve: not confirmed: standard input is not a terminal, so there is no one to ask; "
         r"nothing was written \(pass --yes"),
        # check
        (["check"], 2, "err", r"check needs at least one FILE or DIR; see 'mai-agent check --help'"),
        (["check", "--format", "xml", "x.py"], 2, "err", r"unknown --format 'xml'; use text, json or sarif"),
        (["check", "--jobs", "0", "x.py"], 2, "err", r"bad --jobs '0'; use a number from 1 to \d+"),
        (["check", "--jobs", "lots", "x.py"], 2, "err", r"bad --jobs 'lots'"),
        (["check", "--bogus"], 2, "err", r"Usage: mai-agent check"),
        # the quoted line: without its carriage return, at most 300 bytes, the
        # caret under the column counted in characters
        (["check", "--context", "always", t + "/wide.py"], 10, "out",
         r'^    2 \| x = "\u00e9{5}"; os\.system\("ls " \+ "a{263}\n {6}\| {17}\^$'),
        (["check", "--context", "always", t + "/wide.py"], 10, "out", r'^    3 \| os\.system\("ls"\)\n'),
        # a directory: its .py files at any depth, nothing else
        (["check", t + "/tree"], 0, "out", r"\A[^\n]*/tree/sub/a\.py: [^\n]*\bLOW\b[^\n]*\n\Z"),
        (["check", "--config-dir", t + "/badconf", t + "/ok.py"], 3, "err",
         r"agent\.yaml:1:\d+: .*workers"),
        # config
        (["config"], 2, "err", r"^Usage: mai-agent config check"),
        (["config", "bogus"], 2, "err", r"config: unknown action 'bogus'; expected 'check', 'keys' or 'seccomp'"),
        (["config", "check", "extra"], 2, "err", r"config check: unexpected argument 'extra'"),
        (["config", "check", "--bogus"], 2, "err", r"Usage: mai-agent config check"),
        (["config", "check", "--config-dir", t + "/badconf"], 3, "err", r"agent\.yaml:1:\d+: .*workers"),
        (["config", "keys"], 0, "out", r"drop_dir"),
        # the profile a Swarm node's dockerd takes as its default (docs/SCALING.md)
        (["config", "seccomp"], 0, "out", r'\A\{.*"defaultAction": ?"SCMP_ACT_ERRNO".*\}\n\Z'),
        (["config", "check", "--help"], 0, "out", r"^Usage: mai-agent config check"),
        (["config", "keys", "--help"], 0, "out", r"^Usage: mai-agent config check"),
        (["config", "keys", "--", "--help"], 0, "out", r"drop_dir"),  # after "--", not an option
        # keygen
        (["keygen"], 2, "err", r"keygen: give the private key file .*see 'mai-agent keygen --help'"),
        (["keygen", "--name", "a b", t + "/k1.key"], 2, "err", r"'a b' is not a valid key name"),
        (["keygen", t + "/existing.key"], 2, "err", r"keygen: .*existing\.key exists; checkpoints signed"),
        (["keygen", "--log-dir", t + "/log", t + "/log/in.key"], 2, "err",
         r"keygen: .*in\.key is inside the log directory"),
        (["keygen", t + "/no/such/dir/k.key"], 2, "err", r"keygen: cannot write .*k\.key: No such file"),
        (["keygen", "--bogus"], 2, "err", r"Usage: mai-agent keygen"),
        (["keygen", "--force", t + "/existing.key"], 0, "err",
         r"private key .*existing\.key \(0600\), public key .*existing\.key\.pub"),
        # status
        (["status", "extra"], 2, "err", r"status takes no arguments \('extra'\)"),
        (["status"], 2, "err", r"no status at .*has the agent ever run with this configuration"),
        (["status", "--config-dir", t + "/badconf"], 3, "err", r"agent\.yaml:1:\d+"),
        (["status", "--bogus"], 2, "err", r"Usage: mai-agent status"),
        # the last run's status.json, its process gone: "not running" (1)
        (["status", "--config-dir", t + "/stopped"], 1, "out", r"^agent: not running \(last seen .* as pid 4194305\)"),
        (["status", "--json", "--config-dir", t + "/stopped"], 1, "out", r'"pid": 4194305'),
        # submit
        (["submit", "--timeout", "0", "x.py"], 2, "err", r"--timeout takes whole seconds from 1 to 86400, not '0'"),
        (["submit", "--timeout", "86401", "x.py"], 2, "err", r"not '86401'"),
        (["submit"], 2, "err", r"submit: expected exactly one FILE; see 'mai-agent submit --help'"),
        (["submit", "notes.txt"], 2, "err", r"notes\.txt is not a name the agent runs: it must end in \.py"),
        (["submit", ".hidden.py"], 2, "err", r"is not a name the agent runs"),
        (["submit", t + "/none.py"], 2, "err", r"submit: cannot take .*none\.py"),
        (["submit", "--config-dir", t + "/nodrop", t + "/ok.py"], 2, "err",
         r"submit: cannot copy .*ok\.py into .*agent\.drop_dir in agent\.yaml"),
        (["submit", "--config-dir", t + "/badconf", t + "/ok.py"], 3, "err", r"agent\.yaml:1:\d+"),
        (["submit", "--bogus"], 2, "err", r"Usage: mai-agent submit"),
        # a name whose answer files would not fit in a file name
        (["submit", t + "/" + "a" * 250 + ".py"], 2, "err",
         r"submit: the name of .*\.py is 253 bytes long: its answer files would not fit in a file "
         r"name, so the agent does not run it; rename it to at most 246 bytes"),
        # a directory at the script's name in the drop directory: the copy's rename is refused
        (["submit", "--config-dir", t + "/taken", t + "/taken.py"], 2, "err",
         r"submit: cannot copy .*/taken\.py into .*/takendrop: Is a directory \(agent\.drop_dir"),
        # verify
        (["verify", "a", "b"], 2, "err", r"verify: give one log directory or sidecar"),
        (["verify", t + "/none"], 2, "err", r"verify: .*none: No such file or directory"),
        (["verify", "--since", "x", t + "/ok.audit"], 2, "err", r"--since applies to a log directory, not to the sidecar"),
        (["verify", "--bogus"], 2, "err", r"Usage: mai-agent verify"),
        (["verify", t + "/log", "--pubkey", t + "/ok.py"], 2, "err",
         r"verify: .*/ok\.py: not a public key: expected NAME\+HASH\+BASE64KEY"),
        # a --since checkpoint that is no text: a verdict, not a crash (the
        # public key is the one keygen --force wrote above)
        (["verify", t + "/log", "--pubkey", t + "/existing.key.pub", "--since", t + "/bin.ckpt"], 1, "out",
         r"^FAIL seq=0: .*/bin\.ckpt: not a signed note \(binary or too large\)$"),
        # run
        (["run", "extra"], 2, "err", r"run: unexpected argument 'extra'; see 'mai-agent run --help'"),
        (["run", "--log-file", t + "/no/such/dir/agent.log"], 2, "err",
         r"run: cannot open the log file .*agent\.log \(--log-file\): No such file or directory"),
        (["run", "--config-dir", t + "/badconf"], 3, "err", r"agent\.yaml:1:\d+"),
        (["run", "--bogus"], 2, "err", r"Usage: mai-agent run"),
        # metrics whatever the state: an audit log directory that cannot be read is said
        (["status", "--format", "prometheus", "--config-dir", t + "/badlog"], 0, "err",
         r"/notadir: cannot read the audit log directory: Not a directory"),
        (["status", "--format", "prometheus", "--config-dir", t + "/badlog"], 0, "out", r"^mai_agent_up 0$"),
        # no agent serves the drop directory: no answer (8), and it says why
        (["submit", "--timeout", "1", "--config-dir", t + "/calm", t + "/ok.py"], 8, "err",
         r"submit: no answer for ok\.py: no agent is running for .*calmdrop \(its status\.json is missing or stale\)"),
        # a tree deeper than 64 directories is walked to that depth only
        (["check", t + "/deep"], 0, "out", r"\A[^\n]*/deep/a\.py: [^\n]*\bLOW\b[^\n]*\n\Z"),
        # an agent that runs (its status.json fresh, its pid alive: this
        # test's) before its first check of Docker, with another
        # configuration directory than the one named
        (["status", "--config-dir", t + "/live"], 0, "out",
         r"^agent: running \(pid %d, up \d+s\)\ndrop directory: .*\nconfiguration: /nonexistent/conf\n"
         r"docker: not checked yet$" % os.getpid()),
        (["config", "check"], 0, "err",
         r"the running agent uses the configuration in /nonexistent/conf, not this one; check it "
         r"with 'mai-agent config check --config-dir /nonexistent/conf'", {"MAI_CONFIG_DIR": t + "/live"}),
        # ... and with this very configuration directory: nothing to point at
        (["config", "check"], 0, "err", r"\A(?![\s\S]*the running agent uses)", {"MAI_CONFIG_DIR": t + "/live2"}),
        # a held script whose content is the version that ran last: said so
        (["approve", "--config-dir", t + "/calm2", t + "/calm2drop/u.py"], 2, "out",
         r"^  unchanged since the version that ran last \(sha256 0123456789ab\)$"),
        # it runs but does not answer in time: said, with the content's sha256
        (["submit", "--timeout", "1", "--config-dir", t + "/live", t + "/ok.py"], 8, "err",
         r"submit: no final answer for ok\.py \(sha256 [0-9a-f]{12}\) within 1s: the agent has not "
         r"answered this script yet"),
        # held scripts at any depth of a recursive drop directory, by name,
        # waiting since acceptance when they have not finished
        (["pending", "--config-dir", t + "/rec"], 0, "out",
         r"\A2 scripts held in .*/recdrop .*\n\nsub/deeper/c\.py  HIGH, awaiting_confirmation, written "
         r"by root \(uid 0\), waiting \d+ d\n(.*\n)*z\.py  MEDIUM, awaiting_confirmation"),
        # the drop directory cannot be made: the agent does not start
        (["run", "--config-dir", t + "/runbad"], 1, "err",
         r"cannot create the drop directory .*/ok\.py/drop: Not a directory \(agent\.drop_dir in agent\.yaml\)"),
        # what is at the answer's name is not the agent's (a FIFO): said where the answer goes
        (["submit", "--timeout", "1", "--config-dir", t + "/live", t + "/f.py"], 8, "err",
         r"submit: no answer for f\.py: .*/livedrop/f\.result\.json is a file that is not the "
         r"agent's .*; it keeps it in .*/live/state/unplaced/ \(root\)"),
    ]
    for name in COMMANDS:
        agent.append(([name, "--help"], 0, "out", r"^Usage: mai-agent %s" % name))
        agent.append(([name, "-h"], 0, "out", r"^Usage: mai-agent %s" % name))
    view = [
        (["--help"], 0, "out", r"^Usage: maiaudit \[MOUNTPOINT\] \[OPTIONS\]"),
        (["--version"], 0, "out", r"^maiaudit \d+\.\d+\.\d+\n$"),
        (["--bogus"], 2, "err", r"Run 'maiaudit --help' for the options"),
        (["a", "b"], 2, "err", r"more than one mount point given"),
        (["--log-file", t + "/no/such/dir/view.log", t + "/mnt"], 2, "err",
         r"cannot open the log file .*view\.log \(--log-file\)"),
        ([t + "/no/such/dir/mnt", "--state-dir", t], 2, "err",
         r"mount point .*/mnt: its parent directory is not usable"),
        ([t + "/nomnt", "--state-dir", t], 2, "err",
         r"mount point .*/nomnt does not exist; create it with 'mkdir -p .*/nomnt'"),
        ([t + "/ok.py", "--state-dir", t], 2, "err", r"mount point .*/ok\.py is not a directory; give a directory"),
        (["--allow-other", t + "/nomnt", "--state-dir", t], 2, "err", r"mount point .*/nomnt does not exist"),
        (["--config-dir", t + "/badconf", t + "/mnt"], 2, "err", r"agent\.yaml:1:\d+"),
    ]
    rows = [(AGENT,) + c for c in agent] + [(MAIAUDIT,) + c for c in view]
    if os.geteuid() == 0:
        # a caller who may not read the agent's state directory is not told
        # that no agent runs: it waits for the answer, and says so at the end
        rows.append(("setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", AGENT, "submit",
                                 "--timeout", "1", "--config-dir", t + "/priv", t + "/privscript/p.py"], 8,
                     "err", r"submit: no final answer for p\.py \(sha256 [0-9a-f]{12}\) within 1s: the "
                     r"agent has not answered this script yet", {}))
        # a mount the kernel refuses (nobody on root's 0755 mount point, or
        # without access to /dev/fuse): a runtime failure, exit 1, said
        rows.append(("setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", MAIAUDIT,
                                 t + "/notmine", "--foreground", "--state-dir", t + "/nstate"], 1, "err",
                     r"cannot mount on .*/notmine \(see the message above\)"))
    return [r if len(r) == 6 else r + ({},) for r in rows]


def main():
    failures = []
    with tempfile.TemporaryDirectory(prefix="mai-commands.") as t:
        conf = os.path.join(t, "conf")
        os.makedirs(conf)
        with open(os.path.join(conf, "agent.yaml"), "w") as f:
            f.write("drop_dir: %s/drop\nstate_dir: %s/state\n" % (t, t))
        for d in ("badconf", "nodrop", "calm", "log", "mnt", "stopped/state", "tree/sub/deeper",
                  "calmdrop/sub"):
            os.makedirs(os.path.join(t, d))
        with open(os.path.join(t, "stopped", "agent.yaml"), "w") as f:
            f.write("drop_dir: %s/drop\nstate_dir: %s/stopped/state\n" % (t, t))
        with open(os.path.join(t, "stopped", "state", "status.json"), "w") as f:
            # a pid above the kernel's largest: no such process
            f.write('{"pid": 4194305, "docker_reachable": true}\n')
        with open(os.path.join(t, "tree", "sub", "a.py"), "w") as f:
            f.write("print(1)\n")
        with open(os.path.join(t, "tree", "notes.txt"), "w") as f:
            f.write("not python\n")
        with open(os.path.join(t, "badconf", "agent.yaml"), "w") as f:
            f.write("workers: lots\n")
        deep = os.path.join(t, "deep")
        os.makedirs(os.path.join(deep, *(["d"] * 70)))
        with open(os.path.join(deep, "a.py"), "w") as f:
            f.write("print(1)\n")
        with open(os.path.join(deep, *(["d"] * 70), "z.py"), "w") as f:
            f.write("print(2)\n")
        os.makedirs(os.path.join(t, "badlog"))
        with open(os.path.join(t, "badlog", "agent.yaml"), "w") as f:
            f.write("drop_dir: %s/drop\nstate_dir: %s/badlog/state\n" % (t, t))
        with open(os.path.join(t, "badlog", "audit.yaml"), "w") as f:
            f.write("log_dir: %s/ok.py/notadir\n" % t)
        with open(os.path.join(t, "calm", "agent.yaml"), "w") as f:
            f.write("drop_dir: %s/calmdrop\nstate_dir: %s/state\n" % (t, t))
        with open(os.path.join(t, "calm", "security.yaml"), "w") as f:
            f.write("approvers:\n  users: [root]\nallow_self_approval: true\n")
        with open(os.path.join(t, "calmdrop", "b.py"), "w") as f:
            f.write("print(2)\n")
        os.makedirs(os.path.join(t, "taken"))
        os.makedirs(os.path.join(t, "takendrop", "taken.py"))
        with open(os.path.join(t, "taken", "agent.yaml"), "w") as f:
            f.write("drop_dir: %s/takendrop\nstate_dir: %s/state\n" % (t, t))
        with open(os.path.join(t, "taken.py"), "w") as f:
            f.write("print('taken')\n")
        with open(os.path.join(t, "nodrop", "agent.yaml"), "w") as f:
            f.write("drop_dir: %s/no/such/drop\nstate_dir: %s/state\n" % (t, t))
        with open(os.path.join(t, "wide.py"), "w", newline="") as f:
            f.write('import os\r\nx = "' + "\u00e9" * 5 + '"; os.system("ls " + "' + "a" * 400 +
                    '")\r\nos.system("ls")\r\n')
        with open(os.path.join(t, "ok.py"), "w") as f:
            f.write("print('ok')\n")
        with open(os.path.join(t, "ok.audit"), "w") as f:
            f.write("{}\n")
        with open(os.path.join(t, "existing.key"), "w") as f:
            f.write("a key\n")
        os.makedirs(os.path.join(t, "live", "state"))
        os.makedirs(os.path.join(t, "livedrop"))
        with open(os.path.join(t, "live", "agent.yaml"), "w") as f:
            f.write("drop_dir: %s/livedrop\nstate_dir: %s/live/state\n" % (t, t))
        live_status = os.path.join(t, "live", "state", "status.json")
        with open(live_status, "w") as f:
            f.write('{"pid": %d, "config_dir": "/nonexistent/conf"}\n' % os.getpid())
        os.mkfifo(os.path.join(t, "livedrop", "f.result.json"))
        with open(os.path.join(t, "f.py"), "w") as f:
            f.write("print('f')\n")
        os.makedirs(os.path.join(t, "runbad"))
        with open(os.path.join(t, "runbad", "agent.yaml"), "w") as f:
            f.write("drop_dir: %s/ok.py/drop\nstate_dir: %s/runbad/state\n" % (t, t))
        os.makedirs(os.path.join(t, "rec"))
        os.makedirs(os.path.join(t, "recdrop", "sub", "deeper"))
        with open(os.path.join(t, "rec", "agent.yaml"), "w") as f:
            f.write("drop_dir: %s/recdrop\nstate_dir: %s/rec/state\nrecursive: true\n" % (t, t))
        for rel, level in (("sub/deeper/c", "HIGH"), ("z", "MEDIUM")):
            text = ("print(%r)\n" % rel).encode()
            with open(os.path.join(t, "recdrop", rel + ".py"), "wb") as f:
                f.write(text)
            with open(os.path.join(t, "recdrop", rel + ".result.json"), "w") as f:
                json.dump({"file": rel + ".py", "sha256": hashlib.sha256(text).hexdigest(),
                           "state": "awaiting_confirmation",
                           "times": {"accepted": "2026-01-01T00:00:00.000Z"},
                           "assessment": {"level": level, "findings": []}}, f)
        with open(os.path.join(t, "bin.ckpt"), "wb") as f:
            f.write(b"a\0b")
        os.makedirs(os.path.join(t, "live2", "state"))
        with open(os.path.join(t, "live2", "agent.yaml"), "w") as f:
            f.write("drop_dir: %s/livedrop\nstate_dir: %s/live2/state\n" % (t, t))
        live2_status = os.path.join(t, "live2", "state", "status.json")
        with open(live2_status, "w") as f:
            f.write('{"pid": %d, "config_dir": "%s/live2"}\n' % (os.getpid(), t))
        os.makedirs(os.path.join(t, "calm2"))
        os.makedirs(os.path.join(t, "calm2drop"))
        with open(os.path.join(t, "calm2", "agent.yaml"), "w") as f:
            f.write("drop_dir: %s/calm2drop\nstate_dir: %s/state\n" % (t, t))
        with open(os.path.join(t, "calm2", "security.yaml"), "w") as f:
            f.write("approvers:\n  users: [root]\nallow_self_approval: true\n")
        utext = b"print('u')\n"
        with open(os.path.join(t, "calm2drop", "u.py"), "wb") as f:
            f.write(utext)
        with open(os.path.join(t, "calm2drop", "u.result.json"), "w") as f:
            json.dump({"file": "u.py", "sha256": hashlib.sha256(utext).hexdigest(),
                       "state": "awaiting_confirmation", "assessment": {"level": "HIGH", "findings": []},
                       "since_last_run": {"previous_sha256": "0123456789ab" + "0" * 52, "diff": ""}}, f)
        if os.geteuid() == 0:
            os.chmod(t, 0o711)
            os.makedirs(os.path.join(t, "notmine"), mode=0o755)
            os.makedirs(os.path.join(t, "nstate"))
            os.chown(os.path.join(t, "nstate"), 65534, 65534)
            for d, mode in (("priv", 0o755), ("privdrop", 0o777), ("privstate", 0o700),
                            ("privscript", 0o755)):
                os.makedirs(os.path.join(t, d), mode=mode)
                os.chmod(os.path.join(t, d), mode)
            with open(os.path.join(t, "priv", "agent.yaml"), "w") as f:
                f.write("drop_dir: %s/privdrop\nstate_dir: %s/privstate\n" % (t, t))
            with open(os.path.join(t, "privscript", "p.py"), "w") as f:
                f.write("print('p')\n")
        env = dict(os.environ, MAI_CONFIG_DIR=conf)
        rows = cases(t)
        for prog, args, status, stream, pattern, extra_env in rows:
            os.utime(live_status)  # fresh for as long as the rows take
            os.utime(live2_status)
            p = subprocess.run([prog] + args, capture_output=True, env=dict(env, **extra_env), timeout=60,
                               stdin=subprocess.DEVNULL)
            text = (p.stdout if stream == "out" else p.stderr).decode("utf-8", "replace")
            shown = "%s %s" % (os.path.basename(prog), " ".join(a.replace(t, "$T") for a in args))
            if p.returncode != status:
                failures.append("%s: exit %d, expected %d; stderr: %s" % (
                    shown, p.returncode, status, p.stderr.decode("utf-8", "replace")[-300:]))
            elif not re.search(pattern, text, re.M):
                failures.append("%s: std%s does not match /%s/: %s" % (shown, stream, pattern, text[-300:]))
    for f in failures:
        print("FAIL: " + f, file=sys.stderr)
    print("%d command lines, %d failed" % (len(rows), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
