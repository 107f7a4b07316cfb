import datetime
import sys

EVENTS = {
    "christmas": (12, 25),
    "new year": (1, 1),
    "halloween": (10, 31),
}

today = datetime.date.today()
for name, (m, d) in EVENTS.items():
    when = datetime.date(today.year, m, d)
    if when < today:
        when = when.replace(year=today.year + 1)
    print(f"{name.title():10} in {(when - today).days:3} days ({when:%A})")
if len(sys.argv) > 1:
    target = datetime.date.fromisoformat(sys.argv[1])
    print(f"{sys.argv[1]} is {(target - today).days} days away")
