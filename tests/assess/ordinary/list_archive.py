import sys
import tarfile
import zipfile

path = sys.argv[1]
if zipfile.is_zipfile(path):
    with zipfile.ZipFile(path) as z:
        for info in z.infolist():
            print(f"{info.file_size:>10}  {info.date_time[0]}-{info.date_time[1]:02}-{info.date_time[2]:02}  {info.filename}")
elif tarfile.is_tarfile(path):
    with tarfile.open(path) as t:
        for m in t.getmembers():
            print(f"{m.size:>10}  {m.name}")
else:
    print("not a zip or tar archive")
