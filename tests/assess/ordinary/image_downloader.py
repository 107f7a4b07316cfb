import os
import urllib.request

IMAGES = [
    "https://upload.wikimedia.org/wikipedia/commons/4/47/PNG_transparency_demonstration_1.png",
    "https://upload.wikimedia.org/wikipedia/commons/a/a9/Example.jpg",
]
OUT = "images"

os.makedirs(OUT, exist_ok=True)
for url in IMAGES:
    name = url.rsplit("/", 1)[-1]
    dest = os.path.join(OUT, name)
    if os.path.exists(dest):
        print("already have", name)
        continue
    print("downloading", name, "...")
    urllib.request.urlretrieve(url, dest)
print("done")
