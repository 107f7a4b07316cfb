import os
import sys
import tarfile


def safe_members(tar, dest):
    base = os.path.realpath(dest)
    for m in tar.getmembers():
        target = os.path.realpath(os.path.join(dest, m.name))
        if not target.startswith(base + os.sep):
            print("skipping suspicious path", m.name)
            continue
        if m.issym() or m.islnk():
            print("skipping link", m.name)
            continue
        yield m


archive = sys.argv[1]
dest = sys.argv[2] if len(sys.argv) > 2 else "extracted"
os.makedirs(dest, exist_ok=True)
with tarfile.open(archive) as tar:
    tar.extractall(dest, members=safe_members(tar, dest))
print("done")
