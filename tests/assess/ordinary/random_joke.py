import requests

headers = {"Accept": "application/json"}
r = requests.get("https://icanhazdadjoke.com/", headers=headers, timeout=5)
print(r.json()["joke"])
