# expect: LOW
# absent: MAI050 MAI051
from pathlib import Path
print(Path("/etc/hostname").read_text())
