# expect: LOW
# absent: MAI001
def system(cmd):
    return 'pretend ' + cmd
print(system('ls'))
