import csv
import sqlite3
import sys

csv_path, table = sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "data"
if not table.isidentifier():
    sys.exit("table name must be an identifier")

with open(csv_path, newline="") as f:
    reader = csv.reader(f)
    header = next(reader)
    rows = list(reader)

con = sqlite3.connect("import.db")
cols = ", ".join(f'"{h}" TEXT' for h in header)
con.execute(f'DROP TABLE IF EXISTS "{table}"')
con.execute(f'CREATE TABLE "{table}" ({cols})')
marks = ", ".join("?" * len(header))
con.executemany(f'INSERT INTO "{table}" VALUES ({marks})', rows)
con.commit()
print(f"{len(rows)} rows imported into {table}")
