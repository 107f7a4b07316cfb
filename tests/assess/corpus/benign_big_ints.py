# expect: LOW
# Integers past 64 bits (Python has no overflow): the folder gives such
# values up instead of wrapping them (a fuzzing find).
big = 9223372036854775807 + 11
small = -9223372036854775807 - 1 - 1
neg = -(-9223372036854775807 - 1)
huge = 99999999999999999999 + 1
print(big, small, neg, huge)
