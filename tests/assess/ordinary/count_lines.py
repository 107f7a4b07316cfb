#!/usr/bin/env python3
"""Count lines of code in all .py files below the current directory."""
import os


def count_file(path):
    total = blank = comment = 0
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            total += 1
            stripped = line.strip()
            if not stripped:
                blank += 1
            elif stripped.startswith("#"):
                comment += 1
    return total, blank, comment


def main():
    grand = [0, 0, 0]
    for root, dirs, files in os.walk("."):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d != "__pycache__"]
        for name in sorted(files):
            if name.endswith(".py"):
                path = os.path.join(root, name)
                t, b, c = count_file(path)
                grand[0] += t
                grand[1] += b
                grand[2] += c
                print(f"{path:50} {t:6} {b:6} {c:6}")
    print("-" * 72)
    print(f"{'total':50} {grand[0]:6} {grand[1]:6} {grand[2]:6}")
    print(f"code lines: {grand[0] - grand[1] - grand[2]}")


if __name__ == "__main__":
    main()
