"""Checks a product page every hour and prints when the price drops below a target."""
import re
import time
from datetime import datetime

import requests

PRODUCT = "https://books.toscrape.com/catalogue/a-light-in-the-attic_1000/index.html"
TARGET = 50.0


def current_price():
    html = requests.get(PRODUCT, timeout=10).text
    m = re.search(r'class="price_color">£([\d.]+)<', html)
    return float(m.group(1)) if m else None


while True:
    price = current_price()
    stamp = datetime.now().strftime("%Y-%m-%d %H:%M")
    if price is None:
        print(stamp, "price not found")
    elif price < TARGET:
        print(stamp, f"DEAL! £{price}")
        break
    else:
        print(stamp, f"£{price} (waiting for < £{TARGET})")
    time.sleep(3600)
