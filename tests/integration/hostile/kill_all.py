# kill(-1): every process the script may signal. It sees its own
# container only; the host's process of a neighbouring uid (test_hostile.c)
# would die of SIGUSR2 if it got it.
seen = 0
for p in os.listdir('/proc'):
    if p.isdigit():
        seen += 1
try:
    os.kill(-1, signal.SIGUSR2)
    sent = 'sent'
except OSError as e:
    sent = ename(e.errno)
result(seen < 20, 'kill(-1, SIGUSR2): %s; %d processes visible' % (sent, seen))
