import random
import matplotlib.pyplot as plt

xs = [random.uniform(0, 10) for _ in range(60)]
ys = [2.5 * x + 4 + random.gauss(0, 3) for x in xs]

n = len(xs)
mx, my = sum(xs) / n, sum(ys) / n
slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
intercept = my - slope * mx
print(f"y = {slope:.2f}x + {intercept:.2f}")

plt.scatter(xs, ys, s=15)
plt.plot([0, 10], [intercept, slope * 10 + intercept], "r-")
plt.title("Least squares fit")
plt.show()
