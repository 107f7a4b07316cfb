import collections
import subprocess

out = subprocess.check_output(["git", "log", "--pretty=format:%an|%ad", "--date=short"], text=True)
by_author = collections.Counter()
by_month = collections.Counter()
for line in out.splitlines():
    author, date = line.split("|")
    by_author[author] += 1
    by_month[date[:7]] += 1
print("Commits by author:")
for a, n in by_author.most_common():
    print(f"  {n:5}  {a}")
print("Commits by month:")
for m in sorted(by_month)[-12:]:
    print(f"  {m}  {'*' * by_month[m]}")
