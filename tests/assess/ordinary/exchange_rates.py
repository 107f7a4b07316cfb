import requests

BASE = "EUR"
WANT = ["USD", "GBP", "JPY", "CHF", "SEK"]

def get_rates():
    r = requests.get(f"https://api.frankfurter.app/latest?from={BASE}", timeout=10)
    r.raise_for_status()
    return r.json()

def main():
    data = get_rates()
    print(f"Rates for 1 {BASE} on {data['date']}:")
    for cur in WANT:
        rate = data["rates"].get(cur)
        if rate:
            print(f"  {cur}: {rate:.4f}")
    amount = 100
    print(f"\n{amount} {BASE} = {amount * data['rates']['USD']:.2f} USD")

main()
