import os
from mutagen.easyid3 import EasyID3

for f in sorted(os.listdir(".")):
    if f.lower().endswith(".mp3"):
        try:
            tags = EasyID3(f)
        except Exception:
            print(f, ": no tags")
            continue
        artist = tags.get("artist", ["?"])[0]
        title = tags.get("title", ["?"])[0]
        print(f"{artist} - {title}  ({f})")
