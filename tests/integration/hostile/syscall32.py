# The 32-bit entry (int 0x80) of a 64-bit process: io_uring_setup (425),
# socketcall(SYS_SOCKET, [AF_VSOCK, SOCK_STREAM, 0]) (102), which hides the
# socket's family from a filter on socket(), and socket() itself (359).
# Each call runs in a child: the profile lists no 32-bit architecture, so a
# call is refused or its caller killed (SIGSYS), never made.
if not X86_64:
    result(True, 'not x86-64: no int 0x80')
else:
    PROT_RWX, MAP_PRIVATE_ANON_32 = 7, 0x22 | 0x40
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
    page = libc.mmap(None, 4096, PROT_RWX, MAP_PRIVATE_ANON_32, -1, 0)
    if page in (None, ctypes.c_void_p(-1).value):
        result(False, 'no executable page to test with')
    else:
        # push rbx; mov eax, edi; mov ebx, esi; mov ecx, edx; int 0x80; pop rbx; ret
        code = bytes([0x53, 0x89, 0xf8, 0x89, 0xf3, 0x89, 0xd1, 0xcd, 0x80, 0x5b, 0xc3])
        ctypes.memmove(page, code, len(code))
        call32 = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int)(page)
        args = page + 256
        ctypes.memmove(args, (ctypes.c_uint32 * 3)(40, 1, 0), 12)
        seen = []
        for name, nr, a, b in (('io_uring_setup', 425, 0, args), ('socketcall(AF_VSOCK)', 102, 1, args),
                               ('socket(AF_VSOCK)', 359, 40, 1)):
            rd, wr = os.pipe()
            pid = os.fork()
            if pid == 0:
                os.close(rd)
                rc = call32(nr, a, b)
                os.write(wr, str(rc).encode())
                os._exit(0)
            os.close(wr)
            out = os.read(rd, 64)
            os.close(rd)
            status = os.waitpid(pid, 0)[1]
            if os.WIFSIGNALED(status):
                seen.append((name, 'killed by signal %d' % os.WTERMSIG(status), True))
            else:
                rc = int(out or b'0')
                seen.append((name, ename(-rc) if rc < 0 else 'allowed', rc == -errno.EPERM))
        # Under gVisor its kernel takes the trap; the host's never sees it.
        result(all(ok for _, _, ok in seen) or RUNTIME != 'runc',
               'int 0x80: ' + '; '.join('%s %s' % (n, s) for n, s, _ in seen) +
               ('' if RUNTIME == 'runc' else " (gVisor's kernel answers)"))
