# Becoming root: setuid(0), setgid(0), and su (when an image has it).
seen = []
for f in (os.setuid, os.setgid):
    try:
        f(0)
        seen.append(f.__name__ + ':ROOT')
    except OSError as e:
        seen.append(f.__name__ + ':' + ename(e.errno))
result(os.getuid() != 0 and not any('ROOT' in s for s in seen), ' '.join(seen) + ' uid %d' % os.getuid())
