import datetime
import json
import urllib.request

API = "https://www.bing.com/HPImageArchive.aspx?format=js&idx=0&n=1&mkt=en-US"
with urllib.request.urlopen(API, timeout=10) as r:
    img = json.load(r)["images"][0]
url = "https://www.bing.com" + img["url"]
name = f"bing-{datetime.date.today()}.jpg"
urllib.request.urlretrieve(url, name)
print(img["copyright"])
print("saved", name)
