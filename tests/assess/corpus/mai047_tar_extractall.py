# expect: MEDIUM
# rules: MAI047
import tarfile
with tarfile.open('a.tar') as tar:
    tar.extractall('out')
