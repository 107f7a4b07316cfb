# bpf and perf_event_open: no capability, no call.
attr = ctypes.create_string_buffer(128)
seen = [('bpf', syscall(321, 5, attr, 128)),                 # BPF_PROG_LOAD
        ('perf_event_open', syscall(298, attr, 0, -1, -1, 0))]
bad = [n for n, r in seen if r[0] != -1]
result(not bad, ' '.join('%s:%s' % (n, ename(r[1]) if r[0] == -1 else 'allowed') for n, r in seen))
