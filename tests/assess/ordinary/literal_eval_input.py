import ast

print("Enter a Python list or dict, e.g. [3, 1, 2] or {'b': 2, 'a': 1}")
text = input("> ")
try:
    value = ast.literal_eval(text)
except (ValueError, SyntaxError):
    raise SystemExit("that is not a literal")
if isinstance(value, list):
    print("sorted:", sorted(value))
elif isinstance(value, dict):
    print("keys:", sorted(value))
else:
    print("value:", value)
