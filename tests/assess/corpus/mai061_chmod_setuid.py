# expect: MEDIUM
# rules: MAI061
# absent: MAI062 MAI063 MAI064
import os, stat
os.chmod('tool', stat.S_ISUID | stat.S_IRWXU)
