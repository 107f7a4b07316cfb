"""Print the headlines of a news page (requests + html.parser)."""
from html.parser import HTMLParser

import requests


class HeadlineParser(HTMLParser):
    def __init__(self):
        super().__init__()
        self.in_h = False
        self.headlines = []
        self._buf = []

    def handle_starttag(self, tag, attrs):
        if tag in ("h2", "h3"):
            self.in_h = True
            self._buf = []

    def handle_endtag(self, tag):
        if tag in ("h2", "h3") and self.in_h:
            text = " ".join("".join(self._buf).split())
            if text:
                self.headlines.append(text)
            self.in_h = False

    def handle_data(self, data):
        if self.in_h:
            self._buf.append(data)


page = requests.get("https://www.bbc.com/news", timeout=15,
                    headers={"User-Agent": "Mozilla/5.0 (headline script)"})
p = HeadlineParser()
p.feed(page.text)
for i, h in enumerate(dict.fromkeys(p.headlines), 1):
    print(f"{i:2}. {h}")
