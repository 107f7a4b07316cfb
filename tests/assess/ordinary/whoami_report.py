import getpass
import os
import platform
import socket
import sys

print("user:     ", getpass.getuser())
print("host:     ", socket.gethostname())
print("system:   ", platform.system(), platform.release(), platform.machine())
print("python:   ", sys.version.split()[0], sys.executable)
print("cwd:      ", os.getcwd())
print("cpus:     ", os.cpu_count())
