# expect: BLOCKED
# rules: MAI014
import os
name = 'metsys'[::-1]
getattr(os, name)('id')
