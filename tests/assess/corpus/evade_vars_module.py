# expect: BLOCKED
# rules: MAI014
import os
vars(os)['system']('id')
