# expect: BLOCKED
# rules: MAI001 MAI014
# .format with four arguments (the most it folds) still names os.system
import os
getattr(os, '{}{}{}{}'.format('sy', 'st', 'e', 'm'))('id')
