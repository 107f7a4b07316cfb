import cgi
import os
from http.server import HTTPServer, SimpleHTTPRequestHandler

UPLOAD_DIR = "uploads"
FORM = b"""<html><body><form method="post" enctype="multipart/form-data">
<input type="file" name="file"><input type="submit" value="Upload"></form></body></html>"""


class UploadHandler(SimpleHTTPRequestHandler):
    def do_GET(self):
        if self.path == "/upload":
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(FORM)
        else:
            super().do_GET()

    def do_POST(self):
        form = cgi.FieldStorage(fp=self.rfile, headers=self.headers, environ={"REQUEST_METHOD": "POST"})
        item = form["file"]
        name = os.path.basename(item.filename or "upload.bin")
        os.makedirs(UPLOAD_DIR, exist_ok=True)
        with open(os.path.join(UPLOAD_DIR, name), "wb") as f:
            f.write(item.file.read())
        self.send_response(303)
        self.send_header("Location", "/upload")
        self.end_headers()


HTTPServer(("0.0.0.0", 8000), UploadHandler).serve_forever()
