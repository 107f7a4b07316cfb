# Kernel keyrings (per-uid quotas, a long CVE history) and /proc/key-users,
# which lists the host's uids.
seen = [('add_key', syscall(248, b'user', b'mai', b'x', 1, -2)),       # KEY_SPEC_PROCESS_KEYRING
        ('keyctl', syscall(250, 1, 0)),                              # KEYCTL_JOIN_SESSION_KEYRING
        ('request_key', syscall(249, b'user', b'mai', None, 0))]
bad = [n for n, r in seen if r[0] != -1 or r[1] != errno.EPERM and RUNTIME == 'runc']
try:
    users = open('/proc/key-users').read().split('\n')
    others = [l.split(':')[0].strip() for l in users if l.strip() and l.split(':')[0].strip() != str(os.getuid())]
except OSError:
    others = []
result(not bad and not others, ' '.join('%s:%s' % (n, ename(r[1]) if r[0] == -1 else 'allowed') for n, r in seen) +
       ('; /proc/key-users shows uids ' + ','.join(others[:5]) if others else '; no other uid in /proc/key-users'))
