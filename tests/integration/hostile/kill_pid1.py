# Killing the container's init: it ignores what it has no handler for.
try:
    os.kill(1, signal.SIGKILL)
    sent = 'sent'
except OSError as e:
    sent = ename(e.errno)
alive = os.path.exists('/proc/1')
result(alive, 'kill(1, SIGKILL): %s; init %s' % (sent, 'alive' if alive else 'gone'))
