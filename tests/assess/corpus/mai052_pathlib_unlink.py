# expect: HIGH
# rules: MAI052
import pathlib
pathlib.Path("/var/lib/app/db").unlink()
