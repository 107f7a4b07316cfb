from html.parser import HTMLParser
from urllib.request import Request, urlopen
import csv


class TableParser(HTMLParser):
    """Collects the rows of the first <table> of a page."""

    def __init__(self):
        super().__init__()
        self.depth = 0
        self.done = False
        self.rows, self.row, self.cell = [], None, None

    def handle_starttag(self, tag, attrs):
        if self.done:
            return
        if tag == "table":
            self.depth += 1
        elif self.depth and tag == "tr":
            self.row = []
        elif self.depth and tag in ("td", "th"):
            self.cell = []

    def handle_endtag(self, tag):
        if self.done:
            return
        if tag in ("td", "th") and self.cell is not None:
            self.row.append(" ".join("".join(self.cell).split()))
            self.cell = None
        elif tag == "tr" and self.row is not None:
            if self.row:
                self.rows.append(self.row)
            self.row = None
        elif tag == "table":
            self.depth -= 1
            self.done = self.depth == 0

    def handle_data(self, data):
        if self.cell is not None:
            self.cell.append(data)


URL = "https://en.wikipedia.org/wiki/List_of_countries_by_population_(United_Nations)"
req = Request(URL, headers={"User-Agent": "table-scraper/0.1"})
parser = TableParser()
parser.feed(urlopen(req, timeout=20).read().decode("utf-8"))
with open("table.csv", "w", newline="") as f:
    csv.writer(f).writerows(parser.rows)
print(len(parser.rows), "rows saved to table.csv")
