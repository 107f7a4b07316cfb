# expect: LOW
# absent: MAI047 MAI048
import tarfile
with tarfile.open('a.tar') as tar:
    tar.extractall('out', filter='data')
