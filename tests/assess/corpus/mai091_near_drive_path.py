# expect: MEDIUM
# rules: MAI006
# absent: MAI091
# A program named from a drive letter (A: to Z:, either case), the root or
# '.' is not looked up in PATH.
import subprocess
subprocess.run(['C:\\Tools\\git.exe', 'status'])
subprocess.run(['a:\\git.exe', 'status'])
subprocess.run(['z:/git.exe', 'status'])
subprocess.run(['/usr/bin/git', 'status'])
subprocess.run(['./git', 'status'])
