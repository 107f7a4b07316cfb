import gzip
import shutil
import sys

for name in sys.argv[1:]:
    with open(name, "rb") as src, gzip.open(name + ".gz", "wb") as dst:
        shutil.copyfileobj(src, dst)
    print("wrote", name + ".gz")
