import csv
import matplotlib.pyplot as plt

months, sales = [], []
with open("sales.csv") as f:
    for row in csv.DictReader(f):
        months.append(row["month"])
        sales.append(float(row["sales"]))

plt.figure(figsize=(10, 5))
plt.plot(months, sales, marker="o", color="tab:blue")
plt.title("Monthly sales")
plt.xlabel("Month")
plt.ylabel("Sales (EUR)")
plt.grid(True, alpha=0.3)
plt.tight_layout()
plt.savefig("sales.png", dpi=150)
plt.show()
