"""Closing prices from a CSV downloaded from a broker, with a 20-day average."""
import csv
import matplotlib.pyplot as plt

dates, closes = [], []
with open("AAPL.csv") as f:
    for row in csv.DictReader(f):
        dates.append(row["Date"])
        closes.append(float(row["Close"]))

window = 20
avg = [sum(closes[i - window:i]) / window if i >= window else None for i in range(1, len(closes) + 1)]
plt.plot(dates, closes, label="close")
plt.plot(dates, avg, label=f"{window}-day average")
plt.xticks(dates[::max(1, len(dates) // 10)], rotation=45)
plt.legend()
plt.tight_layout()
plt.show()
