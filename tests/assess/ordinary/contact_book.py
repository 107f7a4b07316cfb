import json
from pathlib import Path

BOOK = Path("contacts.json")


class ContactBook:
    def __init__(self, path=BOOK):
        self.path = path
        self.contacts = json.loads(path.read_text()) if path.exists() else {}

    def add(self, name, phone, email=""):
        self.contacts[name] = {"phone": phone, "email": email}
        self.save()

    def remove(self, name):
        if self.contacts.pop(name, None) is not None:
            self.save()
            return True
        return False

    def search(self, text):
        text = text.lower()
        return {n: c for n, c in self.contacts.items() if text in n.lower()}

    def save(self):
        self.path.write_text(json.dumps(self.contacts, indent=2, sort_keys=True))


def main():
    book = ContactBook()
    while True:
        cmd = input("(a)dd (r)emove (s)earch (l)ist (q)uit: ").strip().lower()
        if cmd == "a":
            book.add(input("name: "), input("phone: "), input("email: "))
        elif cmd == "r":
            print("removed" if book.remove(input("name: ")) else "not found")
        elif cmd == "s":
            for n, c in book.search(input("search: ")).items():
                print(f"  {n}: {c['phone']} {c['email']}")
        elif cmd == "l":
            for n, c in sorted(book.contacts.items()):
                print(f"  {n}: {c['phone']} {c['email']}")
        elif cmd == "q":
            break


if __name__ == "__main__":
    main()
