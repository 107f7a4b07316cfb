"""Encrypt or decrypt a file with a password (Fernet, PBKDF2 key)."""
import base64
import getpass
import os
import sys

from cryptography.fernet import Fernet, InvalidToken
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.pbkdf2 import PBKDF2HMAC


def key_from(password, salt):
    kdf = PBKDF2HMAC(algorithm=hashes.SHA256(), length=32, salt=salt, iterations=480_000)
    return base64.urlsafe_b64encode(kdf.derive(password.encode()))


def encrypt(path):
    salt = os.urandom(16)
    pw = getpass.getpass("password: ")
    data = open(path, "rb").read()
    with open(path + ".enc", "wb") as f:
        f.write(salt + Fernet(key_from(pw, salt)).encrypt(data))
    print("wrote", path + ".enc")


def decrypt(path):
    blob = open(path, "rb").read()
    pw = getpass.getpass("password: ")
    try:
        data = Fernet(key_from(pw, blob[:16])).decrypt(blob[16:])
    except InvalidToken:
        sys.exit("wrong password or damaged file")
    out = path[:-4] if path.endswith(".enc") else path + ".dec"
    with open(out, "wb") as f:
        f.write(data)
    print("wrote", out)


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("enc", "dec"):
        sys.exit("usage: encrypt_file.py enc|dec FILE")
    (encrypt if sys.argv[1] == "enc" else decrypt)(sys.argv[2])
