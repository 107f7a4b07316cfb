# expect: LOW
# absent: MAI001
import platform
print(platform.system())
