# expect: MEDIUM
# rules: MAI005
import subprocess
subprocess.call(
    'id',
    shell=True,
)
