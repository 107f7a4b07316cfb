import platform
import socket

print("Hostname:", socket.gethostname())
print("OS:", platform.system(), platform.release())
print("Python:", platform.python_version())
print("Machine:", platform.machine())
