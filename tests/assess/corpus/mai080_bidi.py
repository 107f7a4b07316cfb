# expect: BLOCKED
# rules: MAI080
access = 'user'
if access != 'none‮⁦': # check admin ⁩⁦' and access != 'user
    print('admin')
