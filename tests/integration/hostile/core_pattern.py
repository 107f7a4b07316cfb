# core_pattern: not writable, and the core limit (1: no dump even to a
# pipe helper) stays as the agent set it.
import resource
try:
    fd = os.open('/proc/sys/kernel/core_pattern', os.O_WRONLY)
    os.close(fd)
    writable = True
except OSError:
    writable = False
soft, hard = resource.getrlimit(resource.RLIMIT_CORE)
try:
    resource.setrlimit(resource.RLIMIT_CORE, (0, hard))
    lowered = True
except (OSError, ValueError):
    lowered = False
ok = not writable and (RUNTIME != 'runc' or ((soft, hard) == (1, 1) and not lowered))
result(ok, 'core_pattern %s; RLIMIT_CORE %d/%d; lowering it to 0 %s' %
       ('writable' if writable else 'read-only', soft, hard, 'worked' if lowered else 'refused'))
