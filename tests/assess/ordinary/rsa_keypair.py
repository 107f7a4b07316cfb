"""Make an RSA key pair for a small signing demo and sign a message typed in."""
from Crypto.Hash import SHA256
from Crypto.PublicKey import RSA
from Crypto.Signature import pkcs1_15

key = RSA.generate(2048)
with open("demo_private.pem", "wb") as f:
    f.write(key.export_key())
with open("demo_public.pem", "wb") as f:
    f.write(key.publickey().export_key())

message = input("message to sign: ").encode()
signature = pkcs1_15.new(key).sign(SHA256.new(message))
print("signature:", signature.hex())
pkcs1_15.new(key.publickey()).verify(SHA256.new(message), signature)
print("verified with demo_public.pem")
