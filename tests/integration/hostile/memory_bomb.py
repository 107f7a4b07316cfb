# Allocating without end: the kernel kills the allocator at the limit (a
# child here, so that the set goes on).
pid = os.fork()
if pid == 0:
    chunks = []
    while True:
        chunks.append(bytearray(16 << 20))
status = os.waitpid(pid, 0)[1]
result(os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL,
       'the allocating child ended with %s' % (('signal %d' % os.WTERMSIG(status)) if os.WIFSIGNALED(status) else 'status %d' % os.WEXITSTATUS(status)))
