# expect: MEDIUM
# rules: MAI033
import requests as r
r.get('https://example.org')
