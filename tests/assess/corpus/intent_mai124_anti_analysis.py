# expect: HIGH
# rules: MAI124
import os, sys
if os.path.exists("/.dockerenv") or os.path.exists("/proc/1/cgroup"):
    sys.exit(0)
