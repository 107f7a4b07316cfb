"""Send a test POST request to httpbin and show what the server saw."""
import requests

payload = {"name": "Alice", "email": "alice@example.com", "message": "Hello!"}
r = requests.post("https://httpbin.org/post", data=payload, timeout=10)
print("status:", r.status_code)
echo = r.json()
print("form fields received:")
for k, v in echo["form"].items():
    print(f"  {k} = {v}")
print("user agent:", echo["headers"].get("User-Agent"))
