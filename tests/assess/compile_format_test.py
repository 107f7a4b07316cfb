#!/usr/bin/env python3
"""`mai-agent check`'s text output read by the editors that read compiler
output, headless: vim's quickfix (`:compiler gcc`, `:cexpr`) and emacs'
compilation mode. Every finding must be one entry at its line and column
with its type (HIGH/CRITICAL error, MEDIUM warning, LOW note), and nothing
else may be taken for a location: not the summary line, not the notes, not a
line of code with a time in it."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

from checklib import agent, check, finish, skip_or_fail


for editor in ("vim", "emacs"):
    if not shutil.which(editor):
        skip_or_fail("%s is not installed (packaging/install-deps.sh installs it)" % editor)

SCRIPT = """import subprocess, sys
print("at 12:30: lunch, 7:05: tea")
subprocess.run('ls ' + sys.argv[0], shell=True)
open('log.txt', 'w').write('12:30: done\\n')
"""

with tempfile.TemporaryDirectory() as d:
    with open(os.path.join(d, "times.py"), "w") as f:
        f.write(SCRIPT)
    with open(os.path.join(d, "clean.py"), "w") as f:
        f.write("print(1)\n")
    cmd = [agent, "check", "--native-only", "--config-dir", d, "times.py", "clean.py"]
    out = subprocess.run(cmd, cwd=d, capture_output=True, text=True, timeout=60).stdout
    with open(os.path.join(d, "out.txt"), "w") as f:
        f.write(out)

    # What the entries must be: the finding lines, read back by a regex.
    kinds = {"error": "e", "warning": "w", "note": "n"}
    want = []
    for line in out.splitlines():
        m = re.match(r"^([^:]+):(\d+):(\d+): (error|warning|note): .* \[[A-Z0-9/]+\]$", line)
        if m:
            want.append((m.group(1), int(m.group(2)), int(m.group(3)), kinds[m.group(4)]))
    # B404 import (LOW), shell=True and the process start (contained:
    # MEDIUM), a shell fed sys.argv (HIGH), the file write (MEDIUM).
    check([w[3] for w in want] == ["n", "w", "w", "e", "w"] and want[3][1:3] == (3, 12),
          "check's findings: %s\n%s" % (want, out))
    # one summary line per file, and the held one's reason to look
    check(len(out.splitlines()) == len(want) + 3, "one summary line per file:\n" + out)

    # vim: gcc's errorformat knows error and warning; a note is an entry
    # without a type whose text starts with "note:".
    vim_out = os.path.join(d, "vim.txt")
    vim = subprocess.run(
        ["vim", "-Nu", "NONE", "-i", "NONE", "-Es",
         "-c", "compiler gcc",
         "-c", "cgetfile out.txt",
         "-c", "call writefile(map(filter(getqflist(), 'v:val.valid'), "
               "'bufname(v:val.bufnr).\":\".v:val.lnum.\":\".v:val.col.\":\".v:val.type.\":\".v:val.text'), "
               "'%s')" % vim_out,
         "-c", "qall!"], cwd=d, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    got = []
    if os.path.exists(vim_out):
        for line in open(vim_out).read().splitlines():
            name, lnum, col, typ, text = line.split(":", 4)
            got.append((name, int(lnum), int(col), typ or ("n" if text.startswith("note:") else "?")))
    check(got == want, "vim quickfix entries:\n%s\nexpected:\n%s" % (got, want))
    # :cexpr on the command's output, as an editor binding would do it.
    vim_out2 = os.path.join(d, "vim2.txt")
    subprocess.run(
        ["vim", "-Nu", "NONE", "-i", "NONE", "-Es", "-c", "compiler gcc",
         "-c", "cexpr system('%s')" % " ".join(cmd),
         "-c", "call writefile([len(filter(getqflist(), 'v:val.valid'))], '%s')" % vim_out2,
         "-c", "qall!"], cwd=d, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    n = open(vim_out2).read().strip() if os.path.exists(vim_out2) else "none"
    check(n == str(len(want)), ":cexpr system(): %s valid entries, expected %d" % (n, len(want)))

    # emacs: compilation mode's types are 2 error, 1 warning, 0 info.
    lisp = r"""
(progn
  (require 'compile)
  (with-current-buffer (find-file-noselect "out.txt")
    (compilation-mode)
    (compilation--ensure-parse (point-max))
    (goto-char (point-min))
    (while (not (eobp))
      (let ((pos (text-property-not-all (line-beginning-position) (line-end-position)
                                        'compilation-message nil)))
        (when pos
          (let* ((msg (get-text-property pos 'compilation-message))
                 (loc (compilation--message->loc msg)))
            (princ (format "%s:%s:%s:%s\n"
                           (car (compilation--file-struct->file-spec
                                 (compilation--loc->file-struct loc)))
                           (compilation--loc->line loc) (compilation--loc->col loc)
                           (compilation--message->type msg))))))
      (forward-line 1))))
"""
    em = subprocess.run(["emacs", "--batch", "-Q", "--eval", lisp], cwd=d, capture_output=True,
                        text=True, timeout=60, stdin=subprocess.DEVNULL)
    etype = {"2": "e", "1": "w", "0": "n"}
    got = []
    for line in em.stdout.splitlines():
        name, lnum, col, typ = line.rsplit(":", 3)
        got.append((name, int(lnum), int(col), etype.get(typ, typ)))
    check(got == want, "emacs compilation entries:\n%s\nexpected:\n%s\n%s" % (got, want, em.stderr[-1000:]))

finish()
