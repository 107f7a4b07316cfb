# expect: MEDIUM
# rules: MAI006
subprocess.call(['/bin/ls', '-l'])
