# expect: LOW
# absent: MAI001 MAI010 MAI011
msg = 'never call os.system or eval() here'
print(msg)
