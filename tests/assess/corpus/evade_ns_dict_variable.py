# expect: BLOCKED
# rules: MAI001 MAI014
# a module's namespace held in a name: os.__dict__
import os
ns = os.__dict__
ns['system']('id')
