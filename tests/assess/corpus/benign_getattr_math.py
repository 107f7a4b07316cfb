# expect: LOW
# absent: MAI014
import math
print(getattr(math, 'sqrt')(4))
