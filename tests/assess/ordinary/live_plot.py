import random
from collections import deque

import matplotlib.pyplot as plt
from matplotlib.animation import FuncAnimation

values = deque([0.0] * 100, maxlen=100)
fig, ax = plt.subplots()
(line,) = ax.plot(range(100), values)
ax.set_ylim(-10, 10)


def update(_frame):
    values.append(max(-10, min(10, values[-1] + random.uniform(-1, 1))))
    line.set_ydata(values)
    return (line,)


anim = FuncAnimation(fig, update, interval=50, blit=True, cache_frame_data=False)
plt.show()
