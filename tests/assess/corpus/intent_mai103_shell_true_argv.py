# expect: HIGH
# rules: MAI103 MAI005
import subprocess, sys
subprocess.run("grep %s *.log" % sys.argv[1], shell=True)
