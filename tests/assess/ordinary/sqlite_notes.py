#!/usr/bin/env python3
"""Notes kept in a local SQLite database (notes.db)."""
import sqlite3
import sys
from datetime import datetime

DB = "notes.db"


def connect():
    con = sqlite3.connect(DB)
    con.execute("""CREATE TABLE IF NOT EXISTS notes (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        created TEXT NOT NULL,
        body TEXT NOT NULL)""")
    return con


def add(con, body):
    con.execute("INSERT INTO notes (created, body) VALUES (?, ?)",
                (datetime.now().isoformat(timespec="seconds"), body))
    con.commit()


def search(con, word):
    return con.execute("SELECT id, created, body FROM notes WHERE body LIKE ? ORDER BY id",
                       (f"%{word}%",)).fetchall()


def main(argv):
    con = connect()
    if len(argv) >= 2 and argv[0] == "add":
        add(con, " ".join(argv[1:]))
    elif len(argv) == 2 and argv[0] == "find":
        for row in search(con, argv[1]):
            print(*row, sep="  ")
    elif len(argv) == 2 and argv[0] == "del":
        con.execute("DELETE FROM notes WHERE id = ?", (int(argv[1]),))
        con.commit()
    else:
        for row in con.execute("SELECT id, created, body FROM notes ORDER BY id DESC LIMIT 20"):
            print(*row, sep="  ")
    con.close()


if __name__ == "__main__":
    main(sys.argv[1:])
