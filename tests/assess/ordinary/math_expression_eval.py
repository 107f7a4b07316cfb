"""Scientific calculator: evaluates what you type with the math module's names."""
import math

allowed = {name: getattr(math, name) for name in dir(math) if not name.startswith("_")}
allowed.update(abs=abs, round=round, min=min, max=max)

print("Type an expression, e.g. sqrt(2) * pi or sin(radians(30)). Ctrl-D to quit.")
while True:
    try:
        line = input("calc> ")
    except EOFError:
        print()
        break
    if not line.strip():
        continue
    try:
        result = eval(line, {"__builtins__": {}}, allowed)
    except Exception as exc:  # any error in the user's expression
        print("error:", exc)
    else:
        print(result)
