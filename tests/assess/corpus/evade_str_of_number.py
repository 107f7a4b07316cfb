# expect: BLOCKED
# rules: MAI001 MAI014
# str() of a constant number is its digits: os.popen2
import os
getattr(os, 'popen' + str(2))('id')
