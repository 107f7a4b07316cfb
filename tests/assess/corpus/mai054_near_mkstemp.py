# expect: LOW
# absent: MAI054
import tempfile
fd, name = tempfile.mkstemp()
