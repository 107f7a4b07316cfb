"""A command-line to-do list stored in todo.json."""
import json
import os

DB = "todo.json"


def load():
    if not os.path.exists(DB):
        return []
    with open(DB) as f:
        return json.load(f)


def save(items):
    with open(DB, "w") as f:
        json.dump(items, f, indent=1)


def show(items):
    if not items:
        print("  (nothing to do)")
    for i, it in enumerate(items, 1):
        print(f"  {i}. [{'x' if it['done'] else ' '}] {it['text']}")


def main():
    items = load()
    help_text = "commands: add TEXT | done N | del N | list | clear | quit"
    print(help_text)
    while True:
        try:
            line = input("todo> ").strip()
        except EOFError:
            break
        cmd, _, arg = line.partition(" ")
        if cmd == "add" and arg:
            items.append({"text": arg, "done": False})
        elif cmd in ("done", "del") and arg.isdigit() and 0 < int(arg) <= len(items):
            if cmd == "done":
                items[int(arg) - 1]["done"] = True
            else:
                items.pop(int(arg) - 1)
        elif cmd == "list":
            show(items)
            continue
        elif cmd == "clear":
            items = [it for it in items if not it["done"]]
        elif cmd in ("quit", "exit"):
            break
        else:
            print(help_text)
            continue
        save(items)
        show(items)


if __name__ == "__main__":
    main()
