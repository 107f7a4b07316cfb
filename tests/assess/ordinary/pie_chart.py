"""Pie chart of the disk space used by file types in the current folder."""
import collections
import os

import matplotlib.pyplot as plt

sizes = collections.Counter()
for root, _, files in os.walk("."):
    for f in files:
        ext = os.path.splitext(f)[1].lower() or "(none)"
        try:
            sizes[ext] += os.path.getsize(os.path.join(root, f))
        except OSError:
            pass

top = sizes.most_common(7)
other = sum(sizes.values()) - sum(v for _, v in top)
labels = [k for k, _ in top] + (["other"] if other else [])
values = [v for _, v in top] + ([other] if other else [])
plt.pie(values, labels=labels, autopct="%1.1f%%", startangle=90)
plt.axis("equal")
plt.title("Space by file type")
plt.show()
