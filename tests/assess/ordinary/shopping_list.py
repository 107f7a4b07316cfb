shopping = []

def show():
    if not shopping:
        print("The list is empty.")
    for i, item in enumerate(shopping, 1):
        print(f"{i}. {item}")

print("Type items to add. Commands: SHOW, DEL n, DONE")
while True:
    entry = input("> ").strip()
    if entry.upper() == "DONE":
        break
    if entry.upper() == "SHOW":
        show()
    elif entry.upper().startswith("DEL "):
        try:
            shopping.pop(int(entry[4:]) - 1)
        except (ValueError, IndexError):
            print("No such item.")
    elif entry:
        shopping.append(entry)

with open("shopping.txt", "w") as f:
    f.write("\n".join(shopping))
show()
