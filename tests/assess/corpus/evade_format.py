# expect: BLOCKED
# rules: MAI014
import os
getattr(os, '{}{}'.format('sys', 'tem'))('id')
