# expect: MEDIUM
# rules: MAI047
# a with-item's expression in parentheses
import tarfile
with (tarfile.open('a.tar')) as tar:
    tar.extractall('out')
