# The host's files: none of its paths is there, and the root is read-only.
present = [p for p in ('/work', '/var/lib/docker', '/root/.ssh', '/etc/docker', '/run/docker.sock', '/var/run/docker.sock') if os.path.exists(p)]
try:
    open('/etc/mai-written', 'w')
    wrote = True
except OSError:
    wrote = False
result(not present and not wrote, 'host paths seen: %s; write to /etc: %s' % (' '.join(present) or 'none', 'worked' if wrote else 'refused'))
