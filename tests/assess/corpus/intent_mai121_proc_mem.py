# expect: HIGH
# rules: MAI121
with open("/proc/self/mem", "r+b") as m:
    m.seek(0x400000)
