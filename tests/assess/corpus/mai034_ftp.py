# expect: MEDIUM
# rules: MAI034
from ftplib import FTP
FTP('example.org')
