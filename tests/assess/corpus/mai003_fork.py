# expect: HIGH
# rules: MAI003
import os
pid = os.fork()
