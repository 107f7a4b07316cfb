"""Print the most common words of a text file."""
import collections
import re
import string
import sys

STOP = set("the a an and or of to in is it that for on with as was be at by this are from".split())

def words(text):
    for w in re.findall(r"[A-Za-z']+", text.lower()):
        w = w.strip(string.punctuation)
        if w and w not in STOP:
            yield w

def main(path, n=20):
    with open(path, encoding="utf-8") as fh:
        counts = collections.Counter(words(fh.read()))
    width = max((len(w) for w, _ in counts.most_common(n)), default=4)
    for word, c in counts.most_common(n):
        print(f"{word:<{width}}  {c:>5}  {'#' * min(c, 50)}")

if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: word_frequency.py FILE [N]")
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 20)
