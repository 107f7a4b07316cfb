#!/usr/bin/env python3
"""Show `git status --short` for every repository under the current folder."""
import os
import subprocess


def repos(top="."):
    for root, dirs, _ in os.walk(top):
        if ".git" in dirs:
            yield root
            dirs[:] = []  # do not descend into a repository
        dirs[:] = [d for d in dirs if not d.startswith(".")]


for repo in repos():
    out = subprocess.run(["git", "status", "--short", "--branch"], cwd=repo,
                         capture_output=True, text=True)
    lines = out.stdout.strip().splitlines()
    dirty = len(lines) > 1
    print(("* " if dirty else "  ") + repo + "  " + (lines[0] if lines else ""))
    for l in lines[1:]:
        print("      " + l)
