import requests
from bs4 import BeautifulSoup


def trending(language="python"):
    r = requests.get(f"https://github.com/trending/{language}?since=daily", timeout=10)
    r.raise_for_status()
    soup = BeautifulSoup(r.text, "html.parser")
    for article in soup.select("article.Box-row"):
        name = article.h2.get_text(" ", strip=True).replace(" ", "")
        desc = article.p.get_text(strip=True) if article.p else ""
        yield name, desc


for i, (name, desc) in enumerate(trending(), 1):
    print(f"{i:2}. {name}\n    {desc[:90]}")
