# expect: MEDIUM
# rules: MAI047
# with-items in parentheses (3.10) bind their values
import tarfile
with (open('log') as log, tarfile.open('a.tar') as tar):
    tar.extractall('out')
