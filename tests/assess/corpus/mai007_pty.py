# expect: MEDIUM
# rules: MAI007
import pty
pty.spawn('/bin/sh')
