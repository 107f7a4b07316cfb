# expect: MEDIUM
# rules: MAI047
# the second item of a with statement names its value too
import tarfile
with open('log') as log, tarfile.open('a.tar') as tar:
    tar.extractall('out')
