# expect: HIGH
# rules: MAI070
print(open('/etc/shadow').read())
