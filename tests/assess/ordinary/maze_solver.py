from collections import deque

MAZE = """\
##########
#S.....#.#
#.##.#.#.#
#.#..#...#
#.#.####.#
#...#...E#
##########"""

grid = [list(r) for r in MAZE.splitlines()]
start = next((r, c) for r, row in enumerate(grid) for c, v in enumerate(row) if v == "S")
end = next((r, c) for r, row in enumerate(grid) for c, v in enumerate(row) if v == "E")

prev = {start: None}
q = deque([start])
while q:
    cur = q.popleft()
    if cur == end:
        break
    r, c = cur
    for nr, nc in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
        if grid[nr][nc] != "#" and (nr, nc) not in prev:
            prev[(nr, nc)] = cur
            q.append((nr, nc))

node = prev.get(end)
while node and node != start:
    grid[node[0]][node[1]] = "*"
    node = prev[node]
print("\n".join("".join(r) for r in grid))
