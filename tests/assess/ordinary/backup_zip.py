#!/usr/bin/env python3
"""Zip the current project folder into backups/NAME-YYYYmmdd-HHMMSS.zip."""
import datetime
import os
import zipfile

EXCLUDE_DIRS = {".git", "__pycache__", "backups", "node_modules", ".venv"}


def backup(folder="."):
    folder = os.path.abspath(folder)
    name = os.path.basename(folder)
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    os.makedirs("backups", exist_ok=True)
    target = os.path.join("backups", f"{name}-{stamp}.zip")
    n = 0
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as zf:
        for root, dirs, files in os.walk(folder):
            dirs[:] = [d for d in dirs if d not in EXCLUDE_DIRS]
            for f in files:
                full = os.path.join(root, f)
                zf.write(full, os.path.relpath(full, folder))
                n += 1
    print(f"{n} files -> {target} ({os.path.getsize(target) // 1024} KiB)")


if __name__ == "__main__":
    backup()
