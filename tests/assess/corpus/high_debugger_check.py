# expect: HIGH
# rules: MAI124
# asks Windows whether a debugger watches it (by either name): anti-analysis
import ctypes
present = ctypes.c_bool(False)
ctypes.windll.kernel32.CheckRemoteDebuggerPresent(ctypes.windll.kernel32.GetCurrentProcess(),
                                                  ctypes.byref(present))
if present.value or ctypes.windll.kernel32.IsDebuggerPresent():
    raise SystemExit(0)
print("nobody watching")
