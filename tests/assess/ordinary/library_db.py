import sqlite3


class Library:
    def __init__(self, path="library.sqlite3"):
        self.db = sqlite3.connect(path)
        self.db.row_factory = sqlite3.Row
        self.db.executescript("""
            CREATE TABLE IF NOT EXISTS books (
                isbn TEXT PRIMARY KEY, title TEXT, author TEXT, year INTEGER, lent_to TEXT);
        """)

    def add(self, isbn, title, author, year):
        with self.db:
            self.db.execute("INSERT OR REPLACE INTO books VALUES (?, ?, ?, ?, NULL)",
                            (isbn, title, author, year))

    def lend(self, isbn, person):
        with self.db:
            cur = self.db.execute("UPDATE books SET lent_to = ? WHERE isbn = ? AND lent_to IS NULL",
                                  (person, isbn))
        return cur.rowcount == 1

    def give_back(self, isbn):
        with self.db:
            self.db.execute("UPDATE books SET lent_to = NULL WHERE isbn = ?", (isbn,))

    def listing(self):
        return self.db.execute("SELECT * FROM books ORDER BY author, year").fetchall()


if __name__ == "__main__":
    lib = Library()
    lib.add("9780141439518", "Pride and Prejudice", "Jane Austen", 1813)
    lib.add("9780451524935", "1984", "George Orwell", 1949)
    lib.lend("9780451524935", "Sam")
    for b in lib.listing():
        status = f"lent to {b['lent_to']}" if b["lent_to"] else "available"
        print(f"{b['title']} ({b['author']}, {b['year']}): {status}")
