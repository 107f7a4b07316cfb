# expect: LOW
# absent: MAI070
# never read /etc/shadow
print('/etc/shadow is off limits')
