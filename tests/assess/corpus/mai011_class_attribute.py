# expect: MEDIUM
# rules: MAI011
# a class attribute named exec does not rebind the module's exec
class A:
    exec = print
exec(input())
