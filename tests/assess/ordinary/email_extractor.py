"""Find e-mail addresses in text files of the current folder."""
import pathlib
import re

EMAIL = re.compile(r"[\w.+-]+@[\w-]+\.[\w.-]+")
found = {}
for path in pathlib.Path(".").rglob("*.txt"):
    for m in EMAIL.findall(path.read_text(errors="ignore")):
        found.setdefault(m.lower(), set()).add(str(path))
for addr in sorted(found):
    print(addr, "  (", ", ".join(sorted(found[addr])), ")")
