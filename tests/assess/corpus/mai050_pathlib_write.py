# expect: HIGH
# rules: MAI050
from pathlib import Path
Path("/etc/profile.d/x.sh").write_text("id")
