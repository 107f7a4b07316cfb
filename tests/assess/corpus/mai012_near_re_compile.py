# expect: LOW
# absent: MAI012
import re
pat = re.compile(r'\d+')
print(pat.findall('a1b22'))
