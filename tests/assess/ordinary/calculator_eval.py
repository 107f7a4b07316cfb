# Simple calculator: type an expression like 2 * (3 + 4), or q to quit
print("Simple calculator")
while True:
    expr = input(">>> ")
    if expr.strip().lower() in ("q", "quit", "exit"):
        break
    try:
        print(eval(expr))
    except Exception as e:
        print("Error:", e)
