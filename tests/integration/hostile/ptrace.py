# ptrace of a child of its own: refused by the profile under runc.
pid = os.fork()
if pid == 0:
    time.sleep(5)
    os._exit(0)
r = syscall(101, 16, pid, 0, 0)  # PTRACE_ATTACH
os.kill(pid, signal.SIGKILL)
os.waitpid(pid, 0)
ok = r[0] == -1 if RUNTIME == 'runc' else True
result(ok, 'PTRACE_ATTACH to its own child: ' + (ename(r[1]) if r[0] == -1 else 'allowed') +
       ('' if RUNTIME == 'runc' else ' (gVisor: only its own sandbox to trace)'))
