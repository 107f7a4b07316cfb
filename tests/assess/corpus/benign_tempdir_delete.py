# expect: MEDIUM
# rules: MAI053
# absent: MAI052
import shutil, tempfile
d = tempfile.mkdtemp()
shutil.rmtree(d)
shutil.rmtree('/tmp/scratch-dir')
