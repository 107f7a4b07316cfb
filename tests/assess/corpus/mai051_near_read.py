# expect: LOW
# absent: MAI051 MAI050
with open('/etc/hostname') as f:
    print(f.read())
