import re

EMAIL_RE = re.compile(r"^[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}$")

samples = ["alice@example.com", "bob.smith@mail.co.uk", "not-an-email", "x@y", "c@d.io"]
for s in samples:
    print(f"{s:25} {'valid' if EMAIL_RE.match(s) else 'INVALID'}")
