# expect: LOW
# absent: MAI031
from urllib.parse import urlparse
print(urlparse('http://example.org').netloc)
