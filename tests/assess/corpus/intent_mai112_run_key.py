# expect: HIGH
# rules: MAI112
import sys, winreg
k = winreg.OpenKey(winreg.HKEY_CURRENT_USER, r"Software\Microsoft\Windows\CurrentVersion\Run", 0, winreg.KEY_SET_VALUE)
winreg.SetValueEx(k, "updater", 0, winreg.REG_SZ, sys.executable)
