# family: outside-data-exec
# the first argument is executed as Python code
import sys

exec(sys.argv[1])
