# expect: MEDIUM
# rules: MAI054
from tempfile import mktemp as fresh_name
import tempfile as t
fresh_name()
t.mktemp(suffix='.x')
