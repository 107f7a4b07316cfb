# expect: MEDIUM
# rules: MAI032
import http.client
c = http.client.HTTPSConnection('example.org')
