# expect: MEDIUM
# rules: MAI011
def f(exec):
    return exec
exec('x = 1')
