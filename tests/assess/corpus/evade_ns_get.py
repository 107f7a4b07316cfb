# expect: BLOCKED
# rules: MAI001 MAI014
# .get of a module's namespace
import os
os.__dict__.get('system')('id')
