VALUES = [(1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"),
          (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")]


def to_roman(n):
    out = []
    for v, s in VALUES:
        while n >= v:
            out.append(s)
            n -= v
    return "".join(out)


def from_roman(s):
    total, i = 0, 0
    for v, sym in VALUES:
        while s[i:i + len(sym)] == sym:
            total += v
            i += len(sym)
    return total


text = input("Number or Roman numeral: ").strip().upper()
if text.isdigit():
    print(to_roman(int(text)))
else:
    print(from_roman(text))
