# expect: MEDIUM
# rules: MAI003
import os
pid = os.fork()
