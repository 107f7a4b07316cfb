# expect: BLOCKED
# rules: MAI001 MAI014
# absent: MAI013
# A repeated constant folds to the name.
import os
getattr(os, 'sy' + 's' * 1 + 'tem')('id')
