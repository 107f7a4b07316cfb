# Raw and packet sockets, AF_VSOCK (past the network namespace, to the
# hypervisor) and the host's uevents (NETLINK_KOBJECT_UEVENT).
seen = []
for name, args in (('raw', (socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)),
                   ('packet', (17, socket.SOCK_RAW, 0)),
                   ('vsock', (40, socket.SOCK_STREAM, 0)),
                   ('uevent', (socket.AF_NETLINK, socket.SOCK_DGRAM, 15))):
    try:
        s = socket.socket(*args)
        s.close()
        seen.append((name, 'allowed'))
    except OSError as e:
        seen.append((name, ename(e.errno)))
# Under gVisor a socket is gVisor's own (no host network, no host uevents,
# no vsock): only an AF_VSOCK socket would lead out.
ok = all(s != 'allowed' for n, s in seen if RUNTIME == 'runc' or n == 'vsock')
result(ok, ' '.join('%s:%s' % x for x in seen) + ('' if RUNTIME == 'runc' else " (gVisor's sockets)"))
