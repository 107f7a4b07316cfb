# expect: LOW
# rules: MAI090
# absent: MAI005
def run(cmd, shell=False):
    return cmd
run('ls', shell=True)
