import os
import shutil
import time

ARCHIVE = "archive"
DAYS = 30
cutoff = time.time() - DAYS * 86400
os.makedirs(ARCHIVE, exist_ok=True)
for name in os.listdir("."):
    if os.path.isfile(name) and os.path.getmtime(name) < cutoff and not name.endswith(".py"):
        shutil.move(name, os.path.join(ARCHIVE, name))
        print("archived", name)
