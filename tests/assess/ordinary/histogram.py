import random
import matplotlib.pyplot as plt

data = [random.gauss(170, 10) for _ in range(1000)]
plt.hist(data, bins=30, edgecolor="black", alpha=0.7)
plt.axvline(sum(data) / len(data), color="red", linestyle="--", label="mean")
plt.xlabel("Height (cm)")
plt.ylabel("Count")
plt.legend()
plt.title("Simulated heights")
plt.savefig("histogram.png")
