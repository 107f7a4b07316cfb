import fnmatch
import os

PATTERNS = ["*.tmp", "*.bak", "*~", ".DS_Store", "Thumbs.db"]
count = 0
for root, dirs, files in os.walk("."):
    for name in files:
        if any(fnmatch.fnmatch(name, p) for p in PATTERNS):
            os.remove(os.path.join(root, name))
            count += 1
print(f"deleted {count} temporary files")
