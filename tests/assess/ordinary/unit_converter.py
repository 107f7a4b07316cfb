LENGTH = {"mm": 0.001, "cm": 0.01, "m": 1.0, "km": 1000.0, "in": 0.0254, "ft": 0.3048, "mi": 1609.344}

def convert(value, src, dst):
    return value * LENGTH[src] / LENGTH[dst]

print("Units:", ", ".join(LENGTH))
while True:
    text = input("convert (e.g. '5 km mi', empty to stop): ").split()
    if not text:
        break
    if len(text) != 3 or text[1] not in LENGTH or text[2] not in LENGTH:
        print("format: VALUE FROM TO")
        continue
    try:
        v = float(text[0])
    except ValueError:
        print("bad number")
        continue
    print(f"{v} {text[1]} = {convert(v, text[1], text[2]):.4g} {text[2]}")
