# expect: LOW
# absent: MAI011
def exec(s):
    return s
exec('print(1)')
