import sys
from pathlib import Path

import markdown

src = Path(sys.argv[1])
html = markdown.markdown(src.read_text(encoding="utf-8"), extensions=["tables", "fenced_code"])
page = f"""<!doctype html>
<html><head><meta charset="utf-8"><title>{src.stem}</title></head>
<body>
{html}
</body></html>
"""
out = src.with_suffix(".html")
out.write_text(page, encoding="utf-8")
print("wrote", out)
