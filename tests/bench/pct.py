"""The one percentile definition of the benchmarks (tests/bench/): nearest
rank, the smallest sample with at least p% of the samples at or below it,
i.e. the ceil(n * p / 100)-th of the sorted samples (1-based); p50 of an even
count is the lower middle sample. Python benchmarks import pct(); shell
scripts run this file:

    python3 pct.py P [P...] < SAMPLES     one sample a line (blank lines skipped)

prints the percentiles asked for, in that order, on one line."""
import sys


def pct(values, p):
    """The p-th percentile (0 < p <= 100) of values by nearest rank."""
    if not values:
        raise ValueError("no samples")
    v = sorted(values)
    rank = -(-len(v) * p // 100)  # ceil(n * p / 100), exact for integer p
    return v[max(1, min(len(v), int(rank))) - 1]


def main(argv):
    if len(argv) < 2:
        sys.exit("usage: pct.py P [P...] < SAMPLES")
    samples = [float(x) for x in sys.stdin.read().split()]
    if not samples:
        sys.exit("pct.py: no samples on stdin")
    out = []
    for a in argv[1:]:
        x = pct(samples, float(a))
        out.append("%d" % x if x == int(x) else "%.2f" % x)
    print(" ".join(out))


if __name__ == "__main__":
    main(sys.argv)
