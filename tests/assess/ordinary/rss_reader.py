import urllib.request
import xml.etree.ElementTree as ET

FEED = "https://www.python.org/blogs/feed/"   # Python Insider

with urllib.request.urlopen(FEED, timeout=10) as f:
    root = ET.fromstring(f.read())

channel = root.find("channel")
print(channel.findtext("title"))
print("=" * 40)
for item in channel.findall("item")[:8]:
    print("*", item.findtext("title"))
    print("  ", item.findtext("link"))
