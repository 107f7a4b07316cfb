# family: outside-data-exec
# evasive: argv travels through a function and a dict before reaching a shell
import subprocess
import sys


def job(spec):
    return {"cmd": spec, "shell": True}


opts = job(" ".join(sys.argv[1:]))
subprocess.Popen(opts["cmd"], shell=opts["shell"]).wait()
