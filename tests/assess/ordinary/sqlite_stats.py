import sqlite3
import sys

db = sys.argv[1] if len(sys.argv) > 1 else "app.db"
con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name")]
for t in tables:
    n = con.execute(f'SELECT COUNT(*) FROM "{t}"').fetchone()[0]
    cols = [r[1] for r in con.execute(f'PRAGMA table_info("{t}")')]
    print(f"{t}: {n} rows; columns: {', '.join(cols)}")
