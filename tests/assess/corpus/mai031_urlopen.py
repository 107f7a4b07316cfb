# expect: MEDIUM
# rules: MAI031
from urllib.request import urlopen
urlopen('http://example.org')
