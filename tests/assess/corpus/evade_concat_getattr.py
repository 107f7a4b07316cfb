# expect: BLOCKED
# rules: MAI014
import os
getattr(os, 'sys' + 'tem')('id')
