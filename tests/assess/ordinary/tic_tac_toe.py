"""Two-player tic-tac-toe in the terminal."""
import os

WINS = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


def clear():
    os.system("cls" if os.name == "nt" else "clear")


def draw(board):
    clear()
    for r in range(3):
        print(" " + " | ".join(board[r * 3:r * 3 + 3]))
        if r < 2:
            print("---+---+---")


def winner(board):
    for a, b, c in WINS:
        if board[a] == board[b] == board[c] and board[a] in "XO":
            return board[a]
    return None


def main():
    board = [str(i) for i in range(1, 10)]
    player = "X"
    for _ in range(9):
        draw(board)
        while True:
            move = input(f"Player {player}, choose a square (1-9): ")
            if move.isdigit() and 1 <= int(move) <= 9 and board[int(move) - 1] not in "XO":
                board[int(move) - 1] = player
                break
            print("Invalid move, try again.")
        if winner(board):
            draw(board)
            print(f"Player {player} wins!")
            return
        player = "O" if player == "X" else "X"
    draw(board)
    print("It's a draw!")


if __name__ == "__main__":
    main()
