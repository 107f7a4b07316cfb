import random
import textwrap

WORDS = ("lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor "
         "incididunt ut labore et dolore magna aliqua enim ad minim veniam quis nostrud").split()


def sentence():
    s = " ".join(random.choices(WORDS, k=random.randint(6, 14)))
    return s.capitalize() + "."


def paragraph():
    return " ".join(sentence() for _ in range(random.randint(3, 6)))


for _ in range(int(input("paragraphs: ") or 3)):
    print(textwrap.fill(paragraph(), 72))
    print()
