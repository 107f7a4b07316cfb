# expect: BLOCKED
# rules: MAI001 MAI014
# a module's __dict__ is its namespace
import os
os.__dict__['system']('id')
