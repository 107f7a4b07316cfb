# expect: LOW
# rules: MAI074
# absent: MAI015 MAI011
# Decrypting data and using it as data is not hidden code; the Crypto
# import is reported, LOW (Bandit's B413 is judged by MAI074).
import json

from Crypto.Cipher import AES


def load_settings(key, blob):
    nonce, tag, data = blob[:16], blob[16:32], blob[32:]
    plain = AES.new(key, AES.MODE_GCM, nonce=nonce).decrypt_and_verify(data, tag)
    return json.loads(plain)


print(load_settings(b"k" * 16, b"\0" * 48))
