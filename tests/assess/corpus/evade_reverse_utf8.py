# expect: BLOCKED
# rules: MAI001 MAI011
# reversed text with a character of two bytes: reversed by character
exec(')"é"(metsys.so;so tropmi'[::-1])
