# Removes empty folders under the current directory (bottom-up).
import os

removed = 0
for root, dirs, files in os.walk(".", topdown=False):
    if root == ".":
        continue
    if not os.listdir(root):
        os.rmdir(root)
        removed += 1
        print("removed", root)
print(removed, "empty folder(s) removed")
