# expect: LOW
café = 3
π = 3.14159
print(café * π)
