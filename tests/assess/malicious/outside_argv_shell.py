# family: outside-data-exec
# arguments joined into a shell command
import subprocess
import sys

subprocess.call(" ".join(sys.argv[1:]), shell=True)
