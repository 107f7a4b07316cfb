import string

def shift(text, k):
    out = []
    for ch in text:
        if ch in string.ascii_lowercase:
            out.append(chr((ord(ch) - 97 + k) % 26 + 97))
        elif ch in string.ascii_uppercase:
            out.append(chr((ord(ch) - 65 + k) % 26 + 65))
        else:
            out.append(ch)
    return "".join(out)

mode = input("(e)ncrypt or (d)ecrypt? ").lower()
key = int(input("key (1-25): "))
msg = input("message: ")
print(shift(msg, key if mode == "e" else -key))
