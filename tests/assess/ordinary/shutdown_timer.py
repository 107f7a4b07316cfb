import os
import platform

minutes = int(input("Shut down the computer in how many minutes? (0 to cancel) "))
if platform.system() == "Windows":
    if minutes == 0:
        os.system("shutdown /a")
    else:
        os.system(f"shutdown /s /t {minutes * 60}")
else:
    if minutes == 0:
        os.system("shutdown -c")
    else:
        os.system(f"shutdown -h +{minutes}")
print("ok")
