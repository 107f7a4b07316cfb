import argparse
import qrcode

ap = argparse.ArgumentParser(description="make a QR code PNG")
ap.add_argument("text")
ap.add_argument("-o", "--output", default="qr.png")
ap.add_argument("--box", type=int, default=10)
a = ap.parse_args()

qr = qrcode.QRCode(box_size=a.box, border=4)
qr.add_data(a.text)
qr.make(fit=True)
qr.make_image(fill_color="black", back_color="white").save(a.output)
print("saved", a.output)
