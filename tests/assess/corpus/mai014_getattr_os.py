# expect: BLOCKED
# rules: MAI014 MAI001
import os
getattr(os, 'system')('id')
