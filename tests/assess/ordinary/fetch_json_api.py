import requests

URL = "https://jsonplaceholder.typicode.com/todos"

resp = requests.get(URL, timeout=10)
resp.raise_for_status()
todos = resp.json()
done = [t for t in todos if t["completed"]]
print(f"{len(done)} of {len(todos)} todos are completed")
for t in todos[:10]:
    mark = "x" if t["completed"] else " "
    print(f"[{mark}] {t['title']}")
