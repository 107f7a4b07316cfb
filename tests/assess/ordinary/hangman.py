import random

WORDS = ["python", "variable", "function", "keyboard", "terminal", "program",
         "library", "developer", "algorithm", "exception", "iterator", "module"]
STAGES = [
    """
       +---+
           |
           |
           |
          ===""",
    """
       +---+
       O   |
           |
           |
          ===""",
    """
       +---+
       O   |
       |   |
           |
          ===""",
    """
       +---+
       O   |
      /|   |
           |
          ===""",
    """
       +---+
       O   |
      /|\\  |
           |
          ===""",
    """
       +---+
       O   |
      /|\\  |
      /    |
          ===""",
    """
       +---+
       O   |
      /|\\  |
      / \\  |
          ===""",
]


def play():
    word = random.choice(WORDS)
    guessed = set()
    wrong = 0
    while wrong < len(STAGES) - 1:
        print(STAGES[wrong])
        shown = " ".join(c if c in guessed else "_" for c in word)
        print("\n   ", shown)
        if "_" not in shown:
            print("You win!")
            return
        letter = input("Guess a letter: ").lower().strip()
        if len(letter) != 1 or not letter.isalpha():
            print("One letter please.")
        elif letter in guessed:
            print("You already tried", letter)
        elif letter in word:
            guessed.add(letter)
        else:
            guessed.add(letter)
            wrong += 1
    print(STAGES[-1])
    print("You lose! The word was", word)


if __name__ == "__main__":
    while True:
        play()
        if input("Play again? (y/n) ").lower() != "y":
            break
