# userfaultfd: the classic way to stretch a kernel race window.
r = syscall(323, os.O_CLOEXEC)
if r[0] >= 0:
    os.close(r[0])
result(r[0] == -1, 'userfaultfd: ' + (ename(r[1]) if r[0] == -1 else 'allowed'))
