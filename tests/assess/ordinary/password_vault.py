import getpass
import hashlib
import json
import os
import secrets

VAULT = "vault.json"


def load():
    if os.path.exists(VAULT):
        with open(VAULT) as f:
            return json.load(f)
    return {"salt": secrets.token_hex(16), "check": None, "entries": {}}


def master_hash(pw, salt):
    return hashlib.pbkdf2_hmac("sha256", pw.encode(), bytes.fromhex(salt), 200_000).hex()


vault = load()
pw = getpass.getpass("Master password: ")
h = master_hash(pw, vault["salt"])
if vault["check"] is None:
    vault["check"] = h
elif vault["check"] != h:
    raise SystemExit("wrong master password")

while True:
    cmd = input("[g]et, [a]dd, [l]ist, [q]uit: ")
    if cmd == "a":
        site = input("site: ")
        vault["entries"][site] = {"user": input("user: "), "password": secrets.token_urlsafe(16)}
        print("generated:", vault["entries"][site]["password"])
    elif cmd == "g":
        print(vault["entries"].get(input("site: "), "not found"))
    elif cmd == "l":
        print(", ".join(sorted(vault["entries"])))
    elif cmd == "q":
        break
with open(VAULT, "w") as f:
    json.dump(vault, f, indent=1)
