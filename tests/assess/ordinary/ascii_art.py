import sys
from PIL import Image

CHARS = "@%#*+=-:. "
img = Image.open(sys.argv[1]).convert("L")
width = int(sys.argv[2]) if len(sys.argv) > 2 else 80
height = int(img.height * width / img.width * 0.5)
img = img.resize((width, height))
pixels = list(img.getdata())
for y in range(height):
    print("".join(CHARS[pixels[y * width + x] * (len(CHARS) - 1) // 255] for x in range(width)))
