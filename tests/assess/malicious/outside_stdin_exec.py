# family: outside-data-exec
# whatever is piped in is compiled and executed
import sys

exec(compile(sys.stdin.read(), "<stdin>", "exec"))
