# expect: BLOCKED
# rules: MAI014
import os
getattr(os, ''.join(['sy', 'st', 'em']))('id')
