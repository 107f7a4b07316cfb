# family: sandbox-escape
# writes into its own process memory through /proc/self/mem
import ctypes

buf = ctypes.create_string_buffer(b"\x90" * 64)
addr = ctypes.addressof(buf)
with open("/proc/self/mem", "r+b") as mem:
    mem.seek(addr)
    mem.write(b"\x48\x31\xff\xb0\x3c\x0f\x05")
    with open("/proc/self/maps") as maps:
        print(maps.read())
