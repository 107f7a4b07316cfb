import collections
import re
import urllib.request
from html.parser import HTMLParser


class TextOnly(HTMLParser):
    skip = {"script", "style"}

    def __init__(self):
        super().__init__()
        self.parts, self._skip = [], 0

    def handle_starttag(self, tag, attrs):
        if tag in self.skip:
            self._skip += 1

    def handle_endtag(self, tag):
        if tag in self.skip and self._skip:
            self._skip -= 1

    def handle_data(self, data):
        if not self._skip:
            self.parts.append(data)


html = urllib.request.urlopen("https://docs.python.org/3/tutorial/index.html", timeout=10).read()
t = TextOnly()
t.feed(html.decode("utf-8", "replace"))
words = re.findall(r"[a-z]{4,}", " ".join(t.parts).lower())
for w, n in collections.Counter(words).most_common(25):
    print(f"{n:4} {w}")
