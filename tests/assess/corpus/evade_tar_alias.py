# expect: MEDIUM
# rules: MAI047
import tarfile as t
opener = t.open
archive = opener('a.tar')
archive.extractall()
