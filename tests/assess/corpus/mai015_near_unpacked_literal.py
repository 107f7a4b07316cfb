# expect: MEDIUM
# rules: MAI011
# absent: MAI015
# a literal list unpacked into exec is not decoded data
exec(*['print(1)'])
