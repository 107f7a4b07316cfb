# expect: level LOW, state completed, verdict exited, exit code 3
import sys

print("something went wrong", file=sys.stderr)
sys.exit(3)
