# expect: LOW
# absent: MAI003
def fork():
    return 1
fork()
