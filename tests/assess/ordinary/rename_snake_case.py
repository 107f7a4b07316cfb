import os
import re

def snake(name):
    base, ext = os.path.splitext(name)
    base = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", base)
    base = re.sub(r"[\s\-]+", "_", base)
    base = re.sub(r"[^\w]", "", base)
    return base.lower() + ext.lower()

for f in os.listdir("."):
    if os.path.isfile(f):
        new = snake(f)
        if new != f and not os.path.exists(new):
            os.rename(f, new)
            print(f"{f!r} -> {new!r}")
