# expect: LOW
# import os; os.system('rm -rf /')
# exec(base64.b64decode(x))
print('ok')
