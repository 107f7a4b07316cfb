import os
import zipfile

for name in os.listdir("."):
    if not name.lower().endswith(".zip"):
        continue
    target = os.path.splitext(name)[0]
    with zipfile.ZipFile(name) as z:
        bad = z.testzip()
        if bad:
            print(name, "is damaged at", bad)
            continue
        z.extractall(target)
    print("extracted", name, "->", target)
