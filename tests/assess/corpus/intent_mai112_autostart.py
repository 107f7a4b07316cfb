# expect: HIGH
# rules: MAI112
import os, shutil
dest = os.path.join(os.path.expanduser("~"), ".config/autostart", "upd.desktop")
shutil.copy("upd.desktop", dest)
