#!/usr/bin/env python3
"""List open issues of a repository; uses GITHUB_TOKEN when set (higher rate limit)."""
import os

import requests

REPO = "psf/requests"
headers = {"Accept": "application/vnd.github+json"}
token = os.getenv("GITHUB_TOKEN")
if token:
    headers["Authorization"] = f"token {token}"

r = requests.get(f"https://api.github.com/repos/{REPO}/issues", headers=headers,
                 params={"state": "open", "per_page": 20}, timeout=10)
r.raise_for_status()
for issue in r.json():
    kind = "PR" if "pull_request" in issue else "issue"
    print(f"#{issue['number']:<6} {kind:5} {issue['title']}")
