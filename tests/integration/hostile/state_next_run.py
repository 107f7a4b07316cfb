# What an earlier run left for this one: /tmp and /dev/shm start empty (the
# runs of this set leave files in both), and no process but its own runs.
left = [p for p in os.listdir('/tmp') if not p.startswith('mai-')] + os.listdir('/dev/shm')
procs = [p for p in os.listdir('/proc') if p.isdigit()]
result(not left and len(procs) < 8, 'left by earlier runs: %s; %d processes at start' % (' '.join(left) or 'nothing', len(procs)))
open('/tmp/left-by-%s' % RUNTIME, 'w').write('x')
try:
    open('/dev/shm/left-by-%s' % RUNTIME, 'w').write('x')
except OSError:
    pass
