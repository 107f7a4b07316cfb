import random

choices = ["rock", "paper", "scissors"]
beats = {"rock": "scissors", "paper": "rock", "scissors": "paper"}
score = {"you": 0, "computer": 0, "draws": 0}

while True:
    player = input("rock, paper or scissors? (q to quit) ").lower()
    if player == "q":
        break
    if player not in choices:
        print("Invalid choice")
        continue
    computer = random.choice(choices)
    print("Computer chose", computer)
    if player == computer:
        print("Draw!")
        score["draws"] += 1
    elif beats[player] == computer:
        print("You win!")
        score["you"] += 1
    else:
        print("You lose!")
        score["computer"] += 1

print(score)
