"""Process a file in a temporary directory and keep only the result."""
import os
import shutil
import subprocess
import tempfile


def word_count_via_tmp(src):
    with tempfile.TemporaryDirectory() as tmp:
        copy = os.path.join(tmp, "input.txt")
        shutil.copy(src, copy)
        with open(copy) as f:
            text = f.read().lower()
        out = os.path.join(tmp, "counts.txt")
        with open(out, "w") as f:
            for w in sorted(set(text.split())):
                f.write(f"{w} {text.split().count(w)}\n")
        shutil.copy(out, "counts.txt")
    return "counts.txt"


if __name__ == "__main__":
    with open("sample.txt", "w") as f:
        f.write("the cat sat on the mat the end\n")
    print("wrote", word_count_via_tmp("sample.txt"))
    subprocess.run(["wc", "-l", "counts.txt"])
