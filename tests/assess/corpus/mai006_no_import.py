# expect: HIGH
# rules: MAI006
subprocess.call(['/bin/ls', '-l'])
