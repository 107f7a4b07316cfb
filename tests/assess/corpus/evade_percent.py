# expect: BLOCKED
# rules: MAI014
import os
getattr(os, '%s%s' % ('sys', 'tem'))('id')
