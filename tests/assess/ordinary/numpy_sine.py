import numpy as np
import matplotlib.pyplot as plt

x = np.linspace(0, 4 * np.pi, 500)
fig, axes = plt.subplots(2, 1, sharex=True, figsize=(8, 6))
axes[0].plot(x, np.sin(x), label="sin")
axes[0].plot(x, np.cos(x), label="cos")
axes[0].legend()
axes[1].plot(x, np.sin(x) * np.exp(-x / 5), color="green")
axes[1].set_title("damped")
fig.suptitle("Trigonometry")
fig.savefig("waves.png")
print("saved waves.png")
