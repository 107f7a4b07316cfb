"""Encrypt or decrypt a file with a passphrase (AES-GCM, PyCryptodome).

usage: encrypt_file_aes.py enc|dec FILE
The output goes beside the input: FILE.enc, or FILE without .enc.
"""
import getpass
import sys

from Crypto.Cipher import AES
from Crypto.Protocol.KDF import PBKDF2
from Crypto.Random import get_random_bytes


def key_from(passphrase, salt):
    return PBKDF2(passphrase, salt, dkLen=32, count=200_000)


def encrypt(path, passphrase):
    salt = get_random_bytes(16)
    cipher = AES.new(key_from(passphrase, salt), AES.MODE_GCM)
    with open(path, "rb") as f:
        data, tag = cipher.encrypt_and_digest(f.read())
    with open(path + ".enc", "wb") as f:
        f.write(salt + cipher.nonce + tag + data)
    print("wrote", path + ".enc")


def decrypt(path, passphrase):
    with open(path, "rb") as f:
        blob = f.read()
    salt, nonce, tag, data = blob[:16], blob[16:32], blob[32:48], blob[48:]
    cipher = AES.new(key_from(passphrase, salt), AES.MODE_GCM, nonce=nonce)
    plain = cipher.decrypt_and_verify(data, tag)
    out = path[:-4] if path.endswith(".enc") else path + ".dec"
    with open(out, "wb") as f:
        f.write(plain)
    print("wrote", out)


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("enc", "dec"):
        sys.exit(__doc__)
    passphrase = getpass.getpass("passphrase: ")
    (encrypt if sys.argv[1] == "enc" else decrypt)(sys.argv[2], passphrase)


if __name__ == "__main__":
    main()
