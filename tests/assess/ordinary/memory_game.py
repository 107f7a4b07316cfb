import os
import random
import time


def clear():
    os.system("clear")


level = 3
while True:
    digits = "".join(random.choice("0123456789") for _ in range(level))
    clear()
    print("Remember:", digits)
    time.sleep(1 + level * 0.4)
    clear()
    answer = input("What was the number? ")
    if answer != digits:
        print(f"Wrong! It was {digits}. You reached level {level}.")
        break
    level += 1
    print("Correct!")
    time.sleep(0.8)
