# The hostile set's runner: each category's file runs in its own copy of
# these globals, and says what it saw with result(). A probe that raises is
# reported as OPEN: a probe that cannot tell is a failure, not a pass.
import errno, os, signal, socket, sys, time, traceback
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
X86_64 = os.uname().machine == 'x86_64'

def syscall(nr, *args):
    conv = [ctypes.c_long(a) if isinstance(a, int) else a for a in args]
    rc = libc.syscall(ctypes.c_long(nr), *conv)
    return rc, (ctypes.get_errno() if rc == -1 else 0)

def refused(rc_errno, *ok_errnos):
    rc, e = rc_errno
    return rc == -1 and e in (ok_errnos or (errno.EPERM,))

def ename(e):
    return errno.errorcode.get(e, str(e))

def run_category(name, src):
    said = []
    def result(ok, detail=''):
        said.append(ok)
        print('RESULT', name, 'ok' if ok else 'OPEN', ' '.join(str(detail).split())[:240], flush=True)
    g = dict(RUNTIME=RUNTIME, result=result, syscall=syscall, refused=refused, ename=ename,
             libc=libc, ctypes=ctypes, X86_64=X86_64, errno=errno, os=os, signal=signal,
             socket=socket, sys=sys, time=time)
    try:
        exec(compile(src, name + '.py', 'exec'), g)
    except BaseException as e:
        if isinstance(e, SystemExit) and os.getpid() != MAIN:
            raise
        result(False, 'the probe failed: ' + traceback.format_exc().splitlines()[-1])
    if not said:
        result(False, 'the probe said nothing')

def settle():
    """Each category starts with the pids limit free: the threads a category
    joined (per_uid_quotas starts 61) leave the kernel a little after
    Python's join returns, and under load that was late enough for the next
    category's first fork to fail with EAGAIN. Up to 5 s."""
    deadline = time.monotonic() + 5
    while len(os.listdir('/proc/self/task')) > 1 and time.monotonic() < deadline:
        time.sleep(0.005)

MAIN = os.getpid()
signal.signal(signal.SIGUSR2, signal.SIG_IGN)  # kill_all sends it to everything it may
for name, src in CATEGORIES:
    if os.getpid() == MAIN:
        settle()
        run_category(name, src)
