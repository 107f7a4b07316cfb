# family: hidden-code
# runs code kept encrypted in the file (AES-CBC with a key beside it): what it runs is unreadable
from Crypto.Cipher import AES
from Crypto.Util.Padding import unpad

KEY = b"k3y-0f-the-dr0pp"
IV = b"\x00" * 16
BLOB = (b"\x8f\x1a\x93\x0c\x44\xe1\x7b\x25\xd0\x6a\x11\x9e\x3c\x58\xf2\x07"
        b"\x61\xbb\x04\xc9\x2d\x7e\x90\x35\xae\x12\x4f\x86\xd3\x0b\x77\xe8")

code = unpad(AES.new(KEY, AES.MODE_CBC, IV).decrypt(BLOB), 16)
exec(code)
