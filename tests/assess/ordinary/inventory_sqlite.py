import sqlite3

conn = sqlite3.connect("inventory.db")
c = conn.cursor()
c.execute("CREATE TABLE IF NOT EXISTS items (name TEXT UNIQUE, qty INTEGER, price REAL)")


def menu():
    print("\n1 add/update item\n2 sell\n3 list\n4 quit")
    return input("choice: ")


while True:
    ch = menu()
    if ch == "1":
        name = input("name: ")
        qty = int(input("quantity: "))
        price = float(input("price: "))
        c.execute("INSERT INTO items VALUES (?, ?, ?) ON CONFLICT(name) DO UPDATE SET qty = qty + ?, price = ?",
                  (name, qty, price, qty, price))
        conn.commit()
    elif ch == "2":
        name = input("name: ")
        qty = int(input("how many: "))
        c.execute("UPDATE items SET qty = qty - ? WHERE name = ? AND qty >= ?", (qty, name, qty))
        print("sold" if c.rowcount else "not enough stock")
        conn.commit()
    elif ch == "3":
        for row in c.execute("SELECT name, qty, price FROM items ORDER BY name"):
            print("%-20s %5d %8.2f" % row)
    elif ch == "4":
        break
conn.close()
