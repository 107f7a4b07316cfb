import sys
from pypdf import PdfReader, PdfWriter

if len(sys.argv) < 3:
    print("usage: pdf_merge.py OUT.pdf IN1.pdf IN2.pdf ...")
    sys.exit(1)

writer = PdfWriter()
for name in sys.argv[2:]:
    reader = PdfReader(name)
    for page in reader.pages:
        writer.add_page(page)
    print(f"{name}: {len(reader.pages)} pages")
with open(sys.argv[1], "wb") as f:
    writer.write(f)
