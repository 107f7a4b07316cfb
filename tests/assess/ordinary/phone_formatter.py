import re
import sys

def normalize(number):
    digits = re.sub(r"\D", "", number)
    if len(digits) == 10:
        return f"({digits[:3]}) {digits[3:6]}-{digits[6:]}"
    if len(digits) == 11 and digits.startswith("1"):
        return f"+1 ({digits[1:4]}) {digits[4:7]}-{digits[7:]}"
    return None

for line in sys.stdin:
    line = line.strip()
    if line:
        print(normalize(line) or f"?? {line}")
