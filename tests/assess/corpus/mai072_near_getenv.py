# expect: LOW
# absent: MAI071 MAI072
import os
print(os.environ.get('HOME'), os.getenv('USER'))
