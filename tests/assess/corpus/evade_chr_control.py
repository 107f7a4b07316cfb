# expect: BLOCKED
# rules: MAI001 MAI011
# a control character (chr(1), in a comment) does not stop the folding
exec(''.join(map(chr, [105, 109, 112, 111, 114, 116, 32, 111, 115, 59, 111, 115, 46, 115, 121, 115, 116, 101, 109, 40, 39, 105, 100, 39, 41, 35, 1])))
