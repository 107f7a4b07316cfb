# Scrapes quotes.toscrape.com into quotes.csv
import csv
import time

import requests
from bs4 import BeautifulSoup

BASE = "https://quotes.toscrape.com"


def scrape():
    url = "/page/1/"
    rows = []
    while url:
        resp = requests.get(BASE + url, timeout=10)
        soup = BeautifulSoup(resp.text, "html.parser")
        for q in soup.select("div.quote"):
            rows.append({
                "text": q.select_one("span.text").get_text(strip=True),
                "author": q.select_one("small.author").get_text(strip=True),
                "tags": ",".join(t.get_text() for t in q.select("a.tag")),
            })
        nxt = soup.select_one("li.next a")
        url = nxt["href"] if nxt else None
        time.sleep(0.5)  # be polite
    return rows


if __name__ == "__main__":
    quotes = scrape()
    with open("quotes.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=["text", "author", "tags"])
        w.writeheader()
        w.writerows(quotes)
    print(f"saved {len(quotes)} quotes")
