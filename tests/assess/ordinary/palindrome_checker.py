import re

def is_palindrome(s):
    cleaned = re.sub(r"[^a-z0-9]", "", s.lower())
    return cleaned == cleaned[::-1] and cleaned != ""

while True:
    s = input("Text (blank to quit): ")
    if not s:
        break
    print("palindrome" if is_palindrome(s) else "not a palindrome")
