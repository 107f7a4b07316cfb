# expect: level BLOCKED, state blocked (needs blocked_decode_exec.override with a reason)
# Decoding a payload and executing it is how obfuscated malware starts.
import base64

payload = base64.b64decode("cHJpbnQoJ2hpJyk=")
exec(payload)
