import sys
import textwrap
import requests

topic = "Python_(programming_language)"
if len(sys.argv) > 1:
    topic = "_".join(sys.argv[1:])

url = "https://en.wikipedia.org/api/rest_v1/page/summary/" + topic
r = requests.get(url, timeout=10, headers={"User-Agent": "wiki-summary-example"})
if r.status_code != 200:
    print("Not found:", topic)
else:
    data = r.json()
    print(data["title"])
    print(textwrap.fill(data.get("extract", ""), 79))
