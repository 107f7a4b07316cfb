import http.client

conn = http.client.HTTPSConnection("www.python.org", timeout=10)
conn.request("HEAD", "/")
res = conn.getresponse()
print(res.status, res.reason)
for name, value in res.getheaders():
    print(f"{name}: {value}")
conn.close()
