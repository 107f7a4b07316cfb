def c_to_f(c):
    return c * 9 / 5 + 32

def f_to_c(f):
    return (f - 32) * 5 / 9

unit = input("Convert from (C/F)? ").strip().upper()
value = float(input("Temperature: "))
if unit == "C":
    print(f"{value}°C = {c_to_f(value):.1f}°F")
elif unit == "F":
    print(f"{value}°F = {f_to_c(value):.1f}°C")
else:
    print("Unknown unit", unit)
