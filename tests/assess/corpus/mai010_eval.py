# expect: HIGH
# rules: MAI010
x = input()
print(eval(x))
