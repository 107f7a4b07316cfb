"""Insert a table of contents for README.md's headings (prints it)."""
import re
import sys

path = sys.argv[1] if len(sys.argv) > 1 else "README.md"
in_code = False
for line in open(path, encoding="utf-8"):
    if line.startswith("```"):
        in_code = not in_code
    if in_code:
        continue
    m = re.match(r"^(#{2,4})\s+(.*)", line)
    if m:
        level = len(m.group(1)) - 2
        title = m.group(2).strip()
        anchor = re.sub(r"[^\w\- ]", "", title).strip().lower().replace(" ", "-")
        print(f"{'  ' * level}- [{title}](#{anchor})")
