# expect: BLOCKED
# rules: MAI001 MAI014
# absent: MAI013
# str.format around text and with numbered fields folds to the name.
import os
getattr(os, 'sys{}'.format('tem'))('id')
getattr(os, 's{1}s{0}'.format('tem', 'y'))('id')
