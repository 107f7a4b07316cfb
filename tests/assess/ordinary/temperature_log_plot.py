from datetime import datetime

import matplotlib.dates as mdates
import matplotlib.pyplot as plt

times, temps = [], []
with open("temperature.log") as fh:
    for line in fh:
        try:
            stamp, value = line.strip().split(",")
            times.append(datetime.fromisoformat(stamp))
            temps.append(float(value))
        except ValueError:
            continue

fig, ax = plt.subplots()
ax.plot(times, temps)
ax.xaxis.set_major_formatter(mdates.DateFormatter("%H:%M"))
ax.set_ylabel("°C")
ax.set_title(f"Temperature, {len(temps)} readings")
fig.autofmt_xdate()
plt.show()
