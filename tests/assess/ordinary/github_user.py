#!/usr/bin/env python3
import argparse
import requests

API = "https://api.github.com"


def user_repos(user):
    repos, page = [], 1
    while True:
        r = requests.get(f"{API}/users/{user}/repos", params={"per_page": 100, "page": page}, timeout=10)
        if r.status_code == 404:
            raise SystemExit(f"no such user: {user}")
        r.raise_for_status()
        batch = r.json()
        if not batch:
            return repos
        repos.extend(batch)
        page += 1


def main():
    p = argparse.ArgumentParser(description="list a GitHub user's repositories by stars")
    p.add_argument("user")
    p.add_argument("-n", type=int, default=10)
    a = p.parse_args()
    repos = sorted(user_repos(a.user), key=lambda r: r["stargazers_count"], reverse=True)
    for r in repos[: a.n]:
        print(f"{r['stargazers_count']:>6} ★  {r['name']}  {r['description'] or ''}")


if __name__ == "__main__":
    main()
