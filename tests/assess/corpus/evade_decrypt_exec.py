# expect: BLOCKED
# rules: MAI015
# Code kept encrypted and run: Fernet's decrypt, and a cipher object the
# analyzer cannot name (a parameter); decrypted data is hidden code.
from cryptography.fernet import Fernet

TOKEN = b"gAAAAABlc2VjcmV0LXRva2VuLW5vdC1yZWFs"


def run(cipher, blob):
    exec(cipher.decrypt(blob).decode())


exec(Fernet(b"a" * 44).decrypt(TOKEN))
