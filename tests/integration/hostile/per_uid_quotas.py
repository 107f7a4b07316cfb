# Per-uid kernel quotas, held at once: inotify instances, POSIX message
# queue bytes, pending signals, pipe pages, processes. The run's uid is its
# own, so only the run runs out. While it holds them it writes
# /tmp/mai-holding; test_hostile.c's process of a neighbouring uid on the
# host checks that it is unaffected and answers with /tmp/mai-go (under
# runc, through /proc/PID/root), or the hold ends after 2 s.
import fcntl, threading
held, counts = [], {}
rt = ctypes.CDLL('librt.so.1', use_errno=True)
libc.inotify_init1.restype = ctypes.c_int
n = 0
while n < 200:  # past max_user_instances (128)
    fd = libc.inotify_init1(os.O_CLOEXEC)
    if fd < 0:
        break
    held.append(fd)
    n += 1
counts['inotify'] = n
stop = None
threads = []
try:
    class Attr(ctypes.Structure):
        _fields_ = [('flags', ctypes.c_long), ('maxmsg', ctypes.c_long), ('msgsize', ctypes.c_long), ('cur', ctypes.c_long), ('pad', ctypes.c_long * 4)]
    n = 0
    while n < 256:
        a = Attr(0, 8, 8192, 0)
        q = rt.mq_open(('/mai-%d' % n).encode(), os.O_CREAT | os.O_RDWR, 0o600, ctypes.byref(a))
        if q < 0:
            break
        held.append(('mq', n))
        n += 1
    counts['mqueues'] = n
    signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGRTMIN])
    info = ctypes.create_string_buffer(128)
    ctypes.memmove(info, (ctypes.c_int * 3)(signal.SIGRTMIN, 0, -1), 12)  # si_code SI_QUEUE
    n = 0
    while n < 200000:
        r = syscall(129, os.getpid(), signal.SIGRTMIN, info)  # rt_sigqueueinfo
        if r[0] == -1:
            break
        n += 1
    counts['signals'] = n
    n = 0
    small = 0
    while n < 1100:  # past pipe-user-pages-soft (1024 pipes of 16 pages)
        try:
            rd, wr = os.pipe()
        except OSError:
            break
        held.extend((rd, wr))
        n += 1
        if fcntl.fcntl(wr, 1032) < 65536:  # F_GETPIPE_SZ
            small += 1
    counts['pipes'] = n
    counts['small_pipes'] = small
    stop = threading.Event()
    threads = []
    try:
        # Under gVisor its threads are the sentry's host threads, which the
        # host's pids limit counts for the whole sandbox.
        for _ in range(4096 if RUNTIME == 'runc' else 16):
            t = threading.Thread(target=stop.wait)
            t.start()
            threads.append(t)
    except RuntimeError:
        pass
    counts['threads'] = len(threads)
    open('/tmp/mai-holding', 'w').write(' '.join('%s=%d' % kv for kv in counts.items()))
    deadline = time.monotonic() + 2
    while time.monotonic() < deadline and not os.path.exists('/tmp/mai-go'):
        time.sleep(0.01)
    go = os.path.exists('/tmp/mai-go')
finally:
    if stop:
        stop.set()
    for t in threads:
        t.join()
    for h in held:
        if isinstance(h, tuple):
            rt.mq_unlink(('/mai-%d' % h[1]).encode())
        else:
            os.close(h)
    signal.signal(signal.SIGRTMIN, signal.SIG_IGN)  # discards the queued ones
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGRTMIN])
# Under runc the limits are the kernel's per-uid ones, all reached.
full = counts['inotify'] == 128 and counts['small_pipes'] > 0 and counts['mqueues'] < 256
result(full or RUNTIME != 'runc', ' '.join('%s=%d' % kv for kv in counts.items()) + (' host checked' if go else ' (no host check)'))
