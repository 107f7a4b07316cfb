# expect: MEDIUM
# rules: MAI010
x = input()
print(eval(x))
