# expect: BLOCKED
# rules: MAI001 MAI014
# str() of a constant text is that text
import os
getattr(os, 'sys' + str('tem'))('id')
