import os
import random
import time

W, H = 60, 24


def step(grid):
    new = [[0] * W for _ in range(H)]
    for y in range(H):
        for x in range(W):
            n = sum(grid[(y + dy) % H][(x + dx) % W]
                    for dy in (-1, 0, 1) for dx in (-1, 0, 1) if dy or dx)
            new[y][x] = 1 if n == 3 or (n == 2 and grid[y][x]) else 0
    return new


grid = [[random.random() < 0.25 for _ in range(W)] for _ in range(H)]
for gen in range(200):
    os.system("cls" if os.name == "nt" else "clear")
    print("\n".join("".join("█" if c else " " for c in row) for row in grid))
    print("generation", gen)
    grid = step(grid)
    time.sleep(0.1)
