# expect: BLOCKED
# rules: MAI061 MAI014
import os
m = 0o700 | 0o007
getattr(os, 'ch' + 'mod')('f', m)
