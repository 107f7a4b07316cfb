import os
import sys
import time

ROOMS = {
    "hall": {"desc": "You are in a dusty hall. Doors lead north and east.",
             "exits": {"north": "library", "east": "kitchen"}},
    "library": {"desc": "Shelves full of old books. A door leads south.",
                "exits": {"south": "hall"}, "item": "key"},
    "kitchen": {"desc": "A cold kitchen. There is a locked door to the east.",
                "exits": {"west": "hall", "east": "garden"}, "locked": "east"},
    "garden": {"desc": "Sunlight! You escaped the house.", "exits": {}},
}


def slow(text):
    for ch in text:
        sys.stdout.write(ch)
        sys.stdout.flush()
        time.sleep(0.01)
    print()


def main():
    room, inventory = "hall", []
    os.system("cls" if os.name == "nt" else "clear")
    while True:
        r = ROOMS[room]
        slow(r["desc"])
        if room == "garden":
            slow("THE END")
            break
        if r.get("item") and r["item"] not in inventory:
            slow(f"You see a {r['item']} here.")
        cmd = input("> ").strip().lower().split()
        if not cmd:
            continue
        if cmd[0] == "go" and len(cmd) > 1:
            d = cmd[1]
            if d not in r["exits"]:
                slow("You can't go that way.")
            elif r.get("locked") == d and "key" not in inventory:
                slow("The door is locked.")
            else:
                room = r["exits"][d]
        elif cmd[0] == "take" and r.get("item"):
            inventory.append(r["item"])
            slow(f"Taken: {r['item']}")
        elif cmd[0] in ("inv", "inventory"):
            slow(", ".join(inventory) or "You carry nothing.")
        elif cmd[0] == "quit":
            break
        else:
            slow("Try: go DIRECTION, take, inventory, quit")


main()
