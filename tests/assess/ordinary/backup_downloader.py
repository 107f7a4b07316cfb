# Downloads the nightly export of our team spreadsheet and keeps the last 7 copies.
import datetime
import glob
import os

import requests

EXPORT_URL = "https://docs.google.com/spreadsheets/d/1AbCdEfGhIjKlMnOpQrStUvWxYz/export?format=csv"
KEEP = 7


def main():
    today = datetime.date.today().isoformat()
    name = f"export-{today}.csv"
    r = requests.get(EXPORT_URL, timeout=60)
    r.raise_for_status()
    with open(name, "wb") as f:
        f.write(r.content)
    print("saved", name, len(r.content), "bytes")
    old = sorted(glob.glob("export-*.csv"))[:-KEEP]
    for path in old:
        os.remove(path)
        print("removed old copy", path)


if __name__ == "__main__":
    main()
