import re

print("Interactive regex tester. Empty pattern quits.")
while True:
    pattern = input("pattern: ")
    if not pattern:
        break
    try:
        rx = re.compile(pattern)
    except re.error as e:
        print("bad pattern:", e)
        continue
    text = input("text: ")
    matches = list(rx.finditer(text))
    if not matches:
        print("no match")
    for m in matches:
        print(f"  {m.start()}-{m.end()}: {m.group(0)!r} groups={m.groups()}")
