#!/usr/bin/env python3
"""Roll dice written like 3d6+2."""
import random
import re
import sys

PATTERN = re.compile(r"^(\d*)d(\d+)([+-]\d+)?$")


def roll(spec):
    m = PATTERN.match(spec.replace(" ", "").lower())
    if not m:
        raise ValueError(f"bad dice: {spec}")
    count = int(m.group(1) or 1)
    sides = int(m.group(2))
    mod = int(m.group(3) or 0)
    rolls = [random.randint(1, sides) for _ in range(count)]
    return rolls, sum(rolls) + mod


if __name__ == "__main__":
    for spec in sys.argv[1:] or ["2d6"]:
        rolls, total = roll(spec)
        print(f"{spec}: {rolls} = {total}")
