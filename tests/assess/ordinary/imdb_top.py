import requests
from bs4 import BeautifulSoup

headers = {"User-Agent": "Mozilla/5.0", "Accept-Language": "en-US,en;q=0.9"}
res = requests.get("https://www.imdb.com/chart/top/", headers=headers, timeout=15)
soup = BeautifulSoup(res.text, "html.parser")
titles = [t.get_text(strip=True) for t in soup.select("h3.ipc-title__text")]
for t in titles[:25]:
    print(t)
