# expect: MEDIUM
# rules: MAI048
# absent: MAI047
import tarfile
tar = tarfile.open('a.tar')
tar.extractall('out', members=pick(tar))
