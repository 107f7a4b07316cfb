import secrets
import string

length = int(input("Password length (default 16): ") or 16)
use_symbols = input("Include symbols? [Y/n] ").strip().lower() != "n"

alphabet = string.ascii_letters + string.digits
if use_symbols:
    alphabet += "!@#$%^&*()-_=+"

while True:
    pwd = "".join(secrets.choice(alphabet) for _ in range(length))
    if (any(c.islower() for c in pwd) and any(c.isupper() for c in pwd)
            and any(c.isdigit() for c in pwd)):
        break
print("Your password:", pwd)
