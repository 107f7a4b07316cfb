"""A tiny RPG character that is saved to and loaded from save.pkl."""
import os
import pickle
import random

SAVE = "save.pkl"


class Hero:
    def __init__(self, name):
        self.name, self.level, self.hp, self.xp = name, 1, 20, 0

    def fight(self):
        dmg = random.randint(0, 8)
        self.hp -= dmg
        self.xp += 5
        if self.xp >= self.level * 20:
            self.level += 1
            self.hp = 20 + self.level * 5
            print(f"Level up! Now level {self.level}")
        return dmg


if os.path.exists(SAVE):
    with open(SAVE, "rb") as f:
        hero = pickle.load(f)
    print(f"Welcome back, {hero.name} (level {hero.level})")
else:
    hero = Hero(input("Name your hero: ") or "Anon")

while hero.hp > 0:
    if input("Fight a monster? (y/n) ") != "y":
        break
    print(f"You took {hero.fight()} damage, {hero.hp} HP left")

with open(SAVE, "wb") as f:
    pickle.dump(hero, f)
print("game saved")
