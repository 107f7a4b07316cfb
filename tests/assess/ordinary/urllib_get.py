import json
import urllib.request

req = urllib.request.Request(
    "https://api.github.com/repos/python/cpython",
    headers={"User-Agent": "repo-stats-script", "Accept": "application/vnd.github+json"},
)
with urllib.request.urlopen(req, timeout=15) as resp:
    repo = json.loads(resp.read().decode("utf-8"))

print("Repository:", repo["full_name"])
print("Stars:     ", repo["stargazers_count"])
print("Forks:     ", repo["forks_count"])
print("Open issues:", repo["open_issues_count"])
print("Language:  ", repo["language"])
