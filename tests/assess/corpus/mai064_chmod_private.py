# expect: LOW
# rules: MAI064
# absent: MAI061 MAI062 MAI060
import os
os.chmod('notes.txt', 0o644)
