# The network: only lo, no route out.
ifs = sorted(n for _, n in socket.if_nameindex())
try:
    s = socket.create_connection(('1.1.1.1', 53), timeout=2)
    s.close()
    out = 'connected'
except OSError as e:
    out = ename(e.errno) if e.errno else str(e)
result(ifs == ['lo'] and out != 'connected', 'interfaces %s; connect 1.1.1.1:53: %s' % (','.join(ifs), out))
