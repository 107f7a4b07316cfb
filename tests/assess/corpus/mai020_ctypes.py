# expect: HIGH
# rules: MAI020
import ctypes
libc = ctypes.CDLL('libc.so.6')
