import collections
import re
import sys

import matplotlib.pyplot as plt

text = open(sys.argv[1], encoding="utf-8").read().lower()
counts = collections.Counter(re.findall(r"\b[a-z]{5,}\b", text)).most_common(15)
words, freqs = zip(*counts)
plt.barh(words[::-1], freqs[::-1], color="teal")
plt.xlabel("occurrences")
plt.tight_layout()
plt.savefig("words.png")
