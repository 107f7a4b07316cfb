# expect: BLOCKED
# rules: MAI001 MAI014
# absent: MAI013
# '%c' of a code point and '%s' of text fold to the name.
import os
getattr(os, 'sys%c%s' % (116, 'em'))('id')
