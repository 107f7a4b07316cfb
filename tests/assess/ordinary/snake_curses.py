import curses
import random


def main(stdscr):
    curses.curs_set(0)
    stdscr.timeout(120)
    h, w = stdscr.getmaxyx()
    snake = [(h // 2, w // 4 + i) for i in range(3)][::-1]
    direction = curses.KEY_RIGHT
    food = (h // 2, w // 2)
    score = 0
    moves = {curses.KEY_UP: (-1, 0), curses.KEY_DOWN: (1, 0),
             curses.KEY_LEFT: (0, -1), curses.KEY_RIGHT: (0, 1)}
    while True:
        stdscr.erase()
        stdscr.border()
        stdscr.addstr(0, 2, f" Score: {score} ")
        stdscr.addch(food[0], food[1], "*")
        for y, x in snake:
            stdscr.addch(y, x, "#")
        key = stdscr.getch()
        if key in moves:
            direction = key
        elif key == ord("q"):
            break
        dy, dx = moves[direction]
        head = (snake[0][0] + dy, snake[0][1] + dx)
        if head in snake or head[0] in (0, h - 1) or head[1] in (0, w - 1):
            break
        snake.insert(0, head)
        if head == food:
            score += 1
            while food in snake:
                food = (random.randint(1, h - 2), random.randint(1, w - 2))
        else:
            snake.pop()
    stdscr.timeout(-1)
    stdscr.addstr(h // 2, w // 2 - 5, "GAME OVER")
    stdscr.getch()


curses.wrapper(main)
