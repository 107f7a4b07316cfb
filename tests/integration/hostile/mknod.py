# A device node (/dev/mem's numbers) on the writable /tmp: not made, or
# (gVisor, whose kernel lets it be made) not a way to the host's memory.
import stat
opened = 'not tried'
try:
    os.mknod('/tmp/mai-mem', stat.S_IFCHR | 0o600, os.makedev(1, 1))
    made = 'made'
    try:
        os.close(os.open('/tmp/mai-mem', os.O_RDONLY))
        opened = 'opened'
    except OSError as e:
        opened = ename(e.errno)
    os.unlink('/tmp/mai-mem')
except OSError as e:
    made = ename(e.errno)
result(made != 'made' or (RUNTIME != 'runc' and opened != 'opened'), 'mknod c 1 1: %s; open: %s' % (made, opened))
