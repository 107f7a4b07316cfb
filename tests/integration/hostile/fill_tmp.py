# Filling /tmp: the tmpfs is capped.
written = 0
try:
    with open('/tmp/mai-fill', 'wb') as f:
        while written < (1 << 30):
            f.write(b'\0' * (1 << 20))
            written += 1 << 20
except OSError as e:
    stopped = ename(e.errno)
else:
    stopped = 'not at all'
os.unlink('/tmp/mai-fill')
result(written < (1 << 30), 'stopped after %d MiB: %s' % (written >> 20, stopped))
