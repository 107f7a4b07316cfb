# Descriptors it did not open: nothing of the host's (a file, a directory,
# a socket of dockerd) is open in the script's process.
seen = []
for fd in os.listdir('/proc/self/fd'):
    try:
        target = os.readlink('/proc/self/fd/' + fd)
    except OSError:
        continue
    if target.startswith('/') and target not in ('/dev/null',) and not target.startswith('/proc/'):
        seen.append('%s->%s' % (fd, target))
    if target.startswith('socket:'):
        seen.append('%s->%s' % (fd, target))
result(not seen, 'foreign descriptors: ' + ' '.join(seen) if seen else 'only pipes, /dev/null and its own')
