"""Pack last month's *.log files into logs-YYYY-MM.tar.gz and delete them."""
import datetime
import glob
import os
import tarfile

today = datetime.date.today()
first = today.replace(day=1)
last_month = (first - datetime.timedelta(days=1)).strftime("%Y-%m")

old = []
for path in glob.glob("logs/*.log"):
    mtime = datetime.date.fromtimestamp(os.path.getmtime(path))
    if mtime.strftime("%Y-%m") == last_month:
        old.append(path)

if old:
    archive = f"logs-{last_month}.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        for p in old:
            tar.add(p)
    for p in old:
        os.remove(p)
    print(f"archived {len(old)} files into {archive}")
else:
    print("nothing to archive")
