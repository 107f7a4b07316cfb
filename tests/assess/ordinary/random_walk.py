import random
import matplotlib.pyplot as plt

steps = 5000
x = y = 0
xs, ys = [0], [0]
for _ in range(steps):
    dx, dy = random.choice([(1, 0), (-1, 0), (0, 1), (0, -1)])
    x += dx
    y += dy
    xs.append(x)
    ys.append(y)
plt.plot(xs, ys, linewidth=0.6)
plt.scatter([0, x], [0, y], c=["green", "red"])
plt.axis("equal")
plt.title(f"Random walk, {steps} steps")
plt.savefig("walk.png")
