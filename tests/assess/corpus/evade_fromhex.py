# expect: BLOCKED
# rules: MAI015
exec(bytes.fromhex('7072696e74283129').decode())
