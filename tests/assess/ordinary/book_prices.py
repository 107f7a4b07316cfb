import re
import requests

START = "https://books.toscrape.com/catalogue/category/books/travel_2/index.html"

html = requests.get(START, timeout=10).text
titles = re.findall(r'<h3><a href="[^"]+" title="([^"]+)"', html)
prices = re.findall(r'<p class="price_color">[^0-9]*([0-9.]+)</p>', html)
books = sorted(zip(titles, map(float, prices)), key=lambda b: b[1])
for title, price in books:
    print(f"£{price:6.2f}  {title}")
print(f"average: £{sum(p for _, p in books) / len(books):.2f}")
