# expect: BLOCKED
# rules: MAI054 MAI014
import tempfile
exec('tempfile.' + 'mktemp()')
