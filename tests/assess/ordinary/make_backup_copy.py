import shutil
import time

FILES = ["thesis.docx", "references.bib", "notes.md"]
stamp = time.strftime("%Y%m%d")
for f in FILES:
    try:
        shutil.copy(f, f"{f}.{stamp}.bak")
        print("backed up", f)
    except FileNotFoundError:
        print("missing:", f)
