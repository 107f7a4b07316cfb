# io_uring_setup, plain and with an SQPOLL thread.
IORING_SETUP_SQPOLL = 2
seen = []
for flags in (0, IORING_SETUP_SQPOLL):
    params = ctypes.create_string_buffer(120)
    ctypes.memmove(ctypes.addressof(params) + 8, ctypes.byref(ctypes.c_uint32(flags)), 4)
    r = syscall(425, 8, params)
    if r[0] >= 0:
        os.close(r[0])
    seen.append(r)
# gVisor has an io_uring of its own (the host's is never reached).
result(all(refused(r) for r in seen) if RUNTIME == 'runc' else True,
       ' '.join('io_uring_setup(flags %d):%s' % (f, ename(r[1]) if r[0] == -1 else 'allowed')
                for f, r in zip((0, 2), seen)) +
       ('' if RUNTIME == 'runc' else " (gVisor's own io_uring, not the host's)"))
