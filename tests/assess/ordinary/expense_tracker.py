# Simple expense tracker that keeps its data in expenses.csv
import csv
import datetime
import os

FILE = "expenses.csv"
FIELDS = ["date", "category", "amount", "note"]


def add_expense():
    category = input("Category: ").strip() or "misc"
    try:
        amount = float(input("Amount: "))
    except ValueError:
        print("Not a number.")
        return
    note = input("Note (optional): ")
    new_file = not os.path.exists(FILE)
    with open(FILE, "a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        if new_file:
            w.writeheader()
        w.writerow({"date": datetime.date.today().isoformat(), "category": category,
                    "amount": f"{amount:.2f}", "note": note})
    print("Saved.")


def report():
    if not os.path.exists(FILE):
        print("No expenses yet.")
        return
    totals = {}
    with open(FILE, newline="") as f:
        for row in csv.DictReader(f):
            totals[row["category"]] = totals.get(row["category"], 0) + float(row["amount"])
    for cat, amt in sorted(totals.items(), key=lambda x: -x[1]):
        print(f"{cat:15} {amt:10.2f}")
    print(f"{'TOTAL':15} {sum(totals.values()):10.2f}")


while True:
    choice = input("\n1) add  2) report  3) quit > ")
    if choice == "1":
        add_expense()
    elif choice == "2":
        report()
    elif choice == "3":
        break
