import xml.etree.ElementTree as ET
import requests

NS = {"sm": "http://www.sitemaps.org/schemas/sitemap/0.9"}
resp = requests.get("https://www.python.org/sitemap.xml", timeout=10)
root = ET.fromstring(resp.content)
locs = [e.text for e in root.findall(".//sm:loc", NS)]
with open("sitemap_urls.txt", "w") as f:
    f.write("\n".join(locs))
print(len(locs), "URLs written to sitemap_urls.txt")
