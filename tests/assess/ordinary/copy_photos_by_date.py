# Copy photos from ./camera into ./sorted/YEAR/MONTH using the file's modification time.
import datetime
import os
import shutil

SRC = "camera"
DST = "sorted"

count = 0
for root, _, files in os.walk(SRC):
    for f in files:
        if not f.lower().endswith((".jpg", ".jpeg", ".png", ".heic", ".mp4")):
            continue
        src = os.path.join(root, f)
        t = datetime.datetime.fromtimestamp(os.path.getmtime(src))
        folder = os.path.join(DST, str(t.year), f"{t.month:02d}")
        os.makedirs(folder, exist_ok=True)
        dest = os.path.join(folder, f)
        if not os.path.exists(dest):
            shutil.copy2(src, dest)
            count += 1
print(count, "files copied")
