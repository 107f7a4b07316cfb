"""Load every module in ./plugins and call its run() function."""
import importlib
import pkgutil
import sys
from pathlib import Path

PLUGINS = Path(__file__).with_name("plugins")
sys.path.insert(0, str(PLUGINS.parent))

for info in pkgutil.iter_modules([str(PLUGINS)]):
    mod = importlib.import_module(f"plugins.{info.name}")
    if hasattr(mod, "run"):
        print(f"--- {info.name}")
        mod.run()
    else:
        print(f"--- {info.name}: no run(), skipped")
