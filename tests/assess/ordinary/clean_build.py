"""Remove build artefacts of a Python project (run from the project root)."""
import glob
import os
import shutil

TARGETS = ["build", "dist", ".pytest_cache", ".mypy_cache", "htmlcov", ".coverage"]

removed = 0
for t in TARGETS + glob.glob("*.egg-info"):
    if os.path.isdir(t):
        shutil.rmtree(t)
        removed += 1
        print("removed", t + "/")
    elif os.path.isfile(t):
        os.remove(t)
        removed += 1
        print("removed", t)
for root, dirs, _ in os.walk("."):
    if "__pycache__" in dirs:
        shutil.rmtree(os.path.join(root, "__pycache__"))
        dirs.remove("__pycache__")
        removed += 1
print(removed, "item(s) removed")
