def add(a, b):
    return a + b


def subtract(a, b):
    return a - b


def multiply(a, b):
    return a * b


def divide(a, b):
    if b == 0:
        raise ZeroDivisionError("cannot divide by zero")
    return a / b


OPS = {"1": ("+", add), "2": ("-", subtract), "3": ("*", multiply), "4": ("/", divide)}

print("Select operation:")
for key, (sym, _) in OPS.items():
    print(f"{key}. {sym}")

while True:
    choice = input("Enter choice (1/2/3/4): ")
    if choice in OPS:
        try:
            num1 = float(input("Enter first number: "))
            num2 = float(input("Enter second number: "))
        except ValueError:
            print("Invalid input. Please enter a number.")
            continue
        sym, fn = OPS[choice]
        try:
            print(num1, sym, num2, "=", fn(num1, num2))
        except ZeroDivisionError as e:
            print(e)
        if input("Let's do next calculation? (yes/no): ").lower() == "no":
            break
    else:
        print("Invalid Input")
