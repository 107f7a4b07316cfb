import re
from datetime import datetime

FORMATS = [
    (re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b"), "%Y-%m-%d"),
    (re.compile(r"\b(\d{2})/(\d{2})/(\d{4})\b"), "%d/%m/%Y"),
]

text = """Meeting notes 2024-01-15. Next review on 03/02/2024,
deadline 2024-02-29 and the launch is planned for 15/04/2024."""
for rx, fmt in FORMATS:
    for m in rx.finditer(text):
        d = datetime.strptime(m.group(0), fmt)
        print(f"{m.group(0):12} -> {d:%A, %d %B %Y}")
