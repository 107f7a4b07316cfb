"""A tiny wheel (maipkg-hello 1.0, pure Python: a zip with a dist-info)
and a PEP 503 simple index of it under ROOT (simple/, files/); its
sha256 goes to ROOT/wheel.sha256. Used by network.sh (the local proxy)
and swarm.sh (a Swarm run's proxy).

    python3 wheel_index.py ROOT
"""
import base64, hashlib, os, sys, zipfile

root = sys.argv[1]
os.makedirs(os.path.join(root, "simple", "maipkg-hello"), exist_ok=True)
os.makedirs(os.path.join(root, "files"), exist_ok=True)
name = "maipkg_hello-1.0-py3-none-any.whl"
files = {
    "maipkg_hello/__init__.py": b'GREETING = "hello from a wheel"\n',
    "maipkg_hello-1.0.dist-info/METADATA": b"Metadata-Version: 2.1\nName: maipkg-hello\nVersion: 1.0\n",
    "maipkg_hello-1.0.dist-info/WHEEL": b"Wheel-Version: 1.0\nGenerator: mai-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
}
record = ""
for path, data in files.items():
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    record += "%s,sha256=%s,%d\n" % (path, digest, len(data))
record += "maipkg_hello-1.0.dist-info/RECORD,,\n"
files["maipkg_hello-1.0.dist-info/RECORD"] = record.encode()
whl = os.path.join(root, "files", name)
with zipfile.ZipFile(whl, "w") as z:
    for path, data in files.items():
        z.writestr(path, data)
sha = hashlib.sha256(open(whl, "rb").read()).hexdigest()
open(os.path.join(root, "wheel.sha256"), "w").write(sha)
page = '<!DOCTYPE html><html><body><a href="../../files/%s#sha256=%s">%s</a></body></html>\n'
open(os.path.join(root, "simple", "maipkg-hello", "index.html"), "w").write(page % (name, sha, name))
open(os.path.join(root, "simple", "index.html"), "w").write(
    '<!DOCTYPE html><html><body><a href="maipkg-hello/">maipkg-hello</a></body></html>\n')
