import os
import shutil

print("Disk usage of the current folder:")
total, used, free = shutil.disk_usage(".")
print(f"  total {total // 2**30} GiB, used {used // 2**30} GiB, free {free // 2**30} GiB")
print()
os.system("uptime")
os.system("df -h .")
os.system("free -m")
