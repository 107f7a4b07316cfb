# expect: HIGH
# rules: MAI050
# Path.touch() creates the file: a write
from pathlib import Path
Path('/etc/cron.d/job').touch()
