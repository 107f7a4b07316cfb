# The cgroup v1 release_agent escape: a writable release_agent or
# notify_on_release anywhere under /sys/fs/cgroup.
writable = []
for d, subdirs, files in os.walk('/sys/fs/cgroup'):
    for f in files:
        if f in ('release_agent', 'notify_on_release', 'cgroup.procs'):
            p = os.path.join(d, f)
            try:
                fd = os.open(p, os.O_WRONLY)
                os.close(fd)
                writable.append(p)
            except OSError:
                pass
result(not writable, 'writable: ' + ' '.join(writable[:3]) if writable else 'nothing writable under /sys/fs/cgroup')
