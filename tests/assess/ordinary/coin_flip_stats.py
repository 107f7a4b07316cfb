import random
from collections import Counter

flips = int(input("How many coin flips? "))
results = Counter(random.choice("HT") for _ in range(flips))
streak = best = 0
prev = None
for _ in range(flips):
    c = random.choice("HT")
    streak = streak + 1 if c == prev else 1
    best = max(best, streak)
    prev = c
print(f"heads: {results['H']} ({results['H'] / flips:.1%}), tails: {results['T']}")
print("longest streak in a second run:", best)
