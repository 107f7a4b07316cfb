# Forking without end: the pids limit holds.
kids = []
try:
    while len(kids) < 10000:
        pid = os.fork()
        if pid == 0:
            time.sleep(30)
            os._exit(0)
        kids.append(pid)
    stopped = 'not at all'
except OSError as e:
    stopped = ename(e.errno)
for k in kids:
    os.kill(k, signal.SIGKILL)
for k in kids:
    os.waitpid(k, 0)
result(len(kids) < 10000, 'forked %d before %s' % (len(kids), stopped))
