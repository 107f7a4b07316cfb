#!/usr/bin/env python3
"""Summarise an orders export and chart revenue per region."""
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd


def main(path="orders.csv"):
    df = pd.read_csv(path, parse_dates=["date"])
    df["revenue"] = df["quantity"] * df["unit_price"]
    by_region = df.groupby("region")["revenue"].sum().sort_values(ascending=False)
    by_month = df.set_index("date").resample("M")["revenue"].sum()
    print(by_region.to_string())
    print()
    print(by_month.tail(12).to_string())

    fig, (a, b) = plt.subplots(1, 2, figsize=(12, 4))
    by_region.plot.bar(ax=a, title="Revenue by region")
    by_month.plot(ax=b, title="Revenue by month")
    fig.tight_layout()
    fig.savefig("report.png")
    df.to_excel("report.xlsx", index=False)


if __name__ == "__main__":
    main(*sys.argv[1:])
