import os

def tree(path, prefix=""):
    entries = sorted(e for e in os.listdir(path) if not e.startswith("."))
    for i, name in enumerate(entries):
        last = i == len(entries) - 1
        print(prefix + ("└── " if last else "├── ") + name)
        full = os.path.join(path, name)
        if os.path.isdir(full) and not os.path.islink(full):
            tree(full, prefix + ("    " if last else "│   "))

print(".")
tree(".")
