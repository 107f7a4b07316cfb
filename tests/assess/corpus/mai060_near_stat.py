# expect: LOW
# absent: MAI060
import os
print(os.stat('.').st_mode)
