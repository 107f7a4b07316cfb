# expect: BLOCKED
# rules: MAI001 MAI011
# ''.join(reversed(text)): the text reversed
exec(''.join(reversed(')"di"(metsys.so;so tropmi')))
