# family: outside-data-exec
# an environment variable's value is executed
import os

exec(os.environ.get("PY_HOOK", ""))
