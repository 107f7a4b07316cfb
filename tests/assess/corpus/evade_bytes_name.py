# expect: BLOCKED
# rules: MAI014
import os
getattr(os, b'system'.decode())('id')
