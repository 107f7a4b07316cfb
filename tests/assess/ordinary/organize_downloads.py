"""Sort the files of the current folder into sub-folders by type.

Run it inside the folder you want to tidy up (e.g. Downloads).
"""
import os
import shutil

CATEGORIES = {
    "Images": [".jpg", ".jpeg", ".png", ".gif", ".bmp", ".webp", ".svg"],
    "Documents": [".pdf", ".doc", ".docx", ".txt", ".odt", ".xlsx", ".csv", ".pptx"],
    "Audio": [".mp3", ".wav", ".flac", ".ogg", ".m4a"],
    "Video": [".mp4", ".mkv", ".avi", ".mov", ".webm"],
    "Archives": [".zip", ".tar", ".gz", ".rar", ".7z"],
    "Code": [".py", ".js", ".html", ".css", ".json", ".c", ".java"],
}


def category_for(ext):
    for cat, exts in CATEGORIES.items():
        if ext.lower() in exts:
            return cat
    return "Other"


def organize(folder="."):
    moved = 0
    me = os.path.basename(__file__)
    for entry in os.listdir(folder):
        src = os.path.join(folder, entry)
        if not os.path.isfile(src) or entry == me:
            continue
        _, ext = os.path.splitext(entry)
        target_dir = os.path.join(folder, category_for(ext))
        os.makedirs(target_dir, exist_ok=True)
        dest = os.path.join(target_dir, entry)
        if os.path.exists(dest):
            base, ext2 = os.path.splitext(entry)
            n = 1
            while os.path.exists(dest):
                dest = os.path.join(target_dir, f"{base} ({n}){ext2}")
                n += 1
        shutil.move(src, dest)
        moved += 1
        print(f"{entry} -> {os.path.relpath(dest, folder)}")
    print(f"Moved {moved} files.")


if __name__ == "__main__":
    organize()
