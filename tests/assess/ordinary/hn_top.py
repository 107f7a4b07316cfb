#!/usr/bin/env python3
"""Top Hacker News stories via the public Firebase API."""
import concurrent.futures as cf

import requests

API = "https://hacker-news.firebaseio.com/v0"


def item(i):
    return requests.get(f"{API}/item/{i}.json", timeout=10).json()


def main(n=15):
    ids = requests.get(f"{API}/topstories.json", timeout=10).json()[:n]
    with cf.ThreadPoolExecutor(max_workers=8) as pool:
        stories = list(pool.map(item, ids))
    for s in stories:
        print(f"{s.get('score', 0):5}  {s.get('title')}")
        if s.get("url"):
            print(f"       {s['url']}")


if __name__ == "__main__":
    main()
