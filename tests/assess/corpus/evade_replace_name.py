# expect: BLOCKED
# rules: MAI001 MAI014
# str.replace of constants is folded
import os
getattr(os, 'sxstem'.replace('x', 'y'))('id')
