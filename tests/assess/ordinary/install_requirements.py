"""Install the packages this project needs if they are missing, then start."""
import importlib.util
import subprocess
import sys

REQUIRED = ["requests", "rich"]

missing = [p for p in REQUIRED if importlib.util.find_spec(p) is None]
if missing:
    print("installing:", ", ".join(missing))
    subprocess.check_call([sys.executable, "-m", "pip", "install", "--user", *missing])

from rich.console import Console  # noqa: E402

Console().print("[bold green]All set![/bold green]")
