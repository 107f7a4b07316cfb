# expect: HIGH
# rules: MAI019
key = input()
a, b = __builtins__.__dict__[key], 1
