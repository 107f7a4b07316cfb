import time
import requests

COINS = "bitcoin,ethereum,solana"
URL = "https://api.coingecko.com/api/v3/simple/price"

for _ in range(3):
    prices = requests.get(URL, params={"ids": COINS, "vs_currencies": "usd"}, timeout=10).json()
    line = "  ".join(f"{c}: ${p['usd']:,}" for c, p in prices.items())
    print(time.strftime("%H:%M:%S"), line)
    time.sleep(10)
