# expect: MEDIUM
# rules: MAI022
# absent: MAI020
import ctypes
ctypes.windll.kernel32.SetConsoleMode(ctypes.windll.kernel32.GetStdHandle(-11), 7)
