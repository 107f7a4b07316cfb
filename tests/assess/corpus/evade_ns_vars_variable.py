# expect: BLOCKED
# rules: MAI001 MAI014
# a module's namespace held in a name: vars(os)
import os
ns = vars(os)
ns['system']('id')
